// The knowledge graph's pages in Chromium (docs/dashboard.md): the entity list with its filter, an
// entity's relations and claims (current and superseded, each linking to its memory), the not-found
// message, and stored markup shown as text. Against an in-process daemon whose graph was built by
// extraction and one Dreaming pass, as a user's would be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ARTIFACTS, closeChromium, openBrowser, type TestBrowser } from "../helpers/browser";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";
import { hasSystemTool } from "../helpers/system-tool";

const MARKUP = "<img src=x onerror=alert(1)>";

afterAll(closeChromium);

describe.skipIf(!hasSystemTool("chromium"))("the knowledge graph pages in the browser", () => {
  let td: TestDaemon;
  let current: TestBrowser | undefined;
  const dialogs: string[] = [];
  const ids: Record<string, string> = {};

  /** A fresh browser (its own storage) for each test, the one before it closed; dialogs recorded. */
  async function fresh(viewport?: { width: number; height: number }): Promise<TestBrowser> {
    await current?.close();
    current = await openBrowser(viewport);
    current.page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return current;
  }

  async function remember(body: Record<string, unknown>): Promise<string> {
    const res = await call(td, "POST", "/api/memory/remember", { body: { type: "fact", ...body } });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  beforeAll(async () => {
    td = await startTestDaemon();
    await remember({ content: "Dana Weber leads the payments team", project: "payments" });
    await remember({ content: "Dana approved the payments rollout", project: "payments" });
    ids.heron7 = await remember({ content: "The staging DB is heron-7." });
    ids.heron8 = await remember({ content: "the staging DB is now heron-8" });
    // Markup in a memory, in an entity's name and in a claim's value.
    ids.markup = await remember({ content: `Dana Weber pasted ${MARKUP} into the notes`, project: "payments" });
    await remember({ content: "Widget Co ships the card readers", structured: { entity: "Widget <b>Co</b>", entityType: "thing", attributes: { motto: MARKUP } } });
    await td.daemon.context.graph.settled();
    const pass = await call(td, "POST", "/api/graph/dream", { body: {}, headers: td.ownerHeaders });
    expect(pass.status).toBe(200);
    expect(pass.body.dream.counts).toMatchObject({ merge: 1, supersede: 1 });
  });

  afterAll(async () => {
    await current?.close();
    await td?.stop();
  });

  test("the list shows the agent's entities with their other names, and the search filters by name", async () => {
    const b = await fresh();
    await b.page.goto(`${td.url}/#/graph`);
    expect(await b.page.locator('nav a[href="#/graph"]').getAttribute("aria-current")).toBe("page");
    const dana = b.page.locator("main tbody tr").filter({ hasText: "Dana Weber" });
    await dana.waitFor();
    expect(await dana.locator("td").allTextContents()).toEqual(["Dana Weber", "person", "3", "Dana"]);
    expect(await b.page.locator("main tbody tr").filter({ hasText: "staging DB" }).count()).toBe(1);
    await b.page.screenshot({ path: join(ARTIFACTS, "graph-1280.png"), fullPage: true });

    await b.page.getByLabel("Name").fill("stag");
    await b.page.getByRole("button", { name: "Filter" }).click();
    await b.page.locator("main tbody tr").filter({ hasText: "Dana Weber" }).waitFor({ state: "detached" });
    // The old rows may go before the filtered ones come: wait for the new table, then read it.
    await b.page.locator("main tbody tr").filter({ hasText: "staging DB" }).waitFor();
    expect(await b.page.locator("main tbody tr td:first-child").allTextContents()).toEqual(["staging DB"]);

    await b.page.getByLabel("Name").fill("nobody-by-this-name");
    await b.page.getByRole("button", { name: "Filter" }).click();
    await b.page.locator("main .empty").filter({ hasText: "nobody-by-this-name" }).waitFor();
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("an entity shows its related entities, each linking to its page, and its latest memories as text", async () => {
    const b = await fresh();
    await b.page.goto(`${td.url}/#/graph`);
    await b.page.getByRole("link", { name: "Dana Weber" }).click();
    await b.page.locator("main h1").filter({ hasText: "Dana Weber" }).waitFor();
    expect(await b.page.locator("main .card").textContent()).toContain("Also known as Dana");
    const payments = b.page.locator("main tbody tr").filter({ hasText: "payments" });
    expect(await payments.locator("td").allTextContents()).toEqual(["payments", "project", "co-occurs", "3", "1.00"]);
    // The star draws it too, linking to the same page.
    expect(await b.page.locator("svg.star a text").allTextContents()).toContain("payments");
    // The memory with markup is listed by its text; no element was made of it.
    const markup = b.page.locator("main ul.list li").filter({ hasText: "pasted" });
    expect(await markup.locator(".content").textContent()).toBe(`Dana Weber pasted ${MARKUP} into the notes`);
    expect(await markup.locator("a").getAttribute("href")).toBe(`#/memories/${ids.markup}`);
    expect(await b.page.locator("main img").count()).toBe(0);
    await b.page.screenshot({ path: join(ARTIFACTS, "graph-entity.png"), fullPage: true });

    await payments.getByRole("link", { name: "payments" }).click();
    await b.page.locator("main h1").filter({ hasText: "payments" }).waitFor();
    expect(await b.page.locator("main tbody tr td:first-child").allTextContents()).toContain("Dana Weber");
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a slot's newer value is current, the older one superseded with its dates and a link to its memory", async () => {
    const b = await fresh();
    await b.page.goto(`${td.url}/#/graph/${encodeURIComponent("staging DB")}`);
    const slot = b.page.getByRole("region", { name: "general.is" });
    await slot.waitFor();
    const current = slot.locator("li.claim.current");
    const superseded = slot.locator("li.claim.superseded");
    expect(await current.locator(".value").allTextContents()).toEqual(["heron-8"]);
    expect(await superseded.locator(".value").allTextContents()).toEqual(["heron-7"]);
    expect(await current.locator(".tag").textContent()).toBe("current");
    expect(await superseded.locator(".tag").textContent()).toBe("superseded");
    expect(await current.textContent()).not.toContain("until");
    expect(await superseded.textContent()).toMatch(/valid from .+ until .+/);
    expect(await current.getByRole("link").getAttribute("href")).toBe(`#/memories/${ids.heron8}`);
    await b.page.screenshot({ path: join(ARTIFACTS, "graph-claims.png"), fullPage: true });

    await superseded.getByRole("link").click();
    await b.page.locator("#memory-content").waitFor();
    expect(await b.page.locator("#memory-content").textContent()).toBe("The staging DB is heron-7.");
    expect(b.page.url()).toEndWith(`#/memories/${ids.heron7}`);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("an entity's name and claims with markup are shown as text", async () => {
    const b = await fresh();
    await b.page.goto(`${td.url}/#/graph`);
    const link = b.page.getByRole("link", { name: "Widget <b>Co</b>" });
    await link.waitFor();
    expect(await b.page.locator("main b").count()).toBe(0);
    await link.click();
    await b.page.locator("main h1").filter({ hasText: "Widget <b>Co</b>" }).waitFor();
    expect(await b.page.getByRole("region", { name: "attributes.motto" }).locator(".value").textContent()).toBe(MARKUP);
    expect(await b.page.locator("main img, main b").count()).toBe(0);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("an entity the agent does not have says so; another agent's list is empty and says what to do", async () => {
    const b = await fresh();
    await b.page.goto(`${td.url}/#/graph/nothing-here`);
    const notFound = b.page.locator("main .empty[role=alert]");
    await notFound.waitFor();
    expect(await notFound.textContent()).toStartWith('No such entity for agent default: nothing in its graph is called or has the id "nothing-here".');

    // The Agent field: another agent has no graph yet, and Dana Weber is not one of its entities.
    await b.page.goto(`${td.url}/#/graph`);
    await b.page.locator("#agent-id").fill("someone-else");
    await b.page.locator("#agent-id").press("Enter");
    const empty = b.page.locator("main .empty");
    await empty.waitFor();
    expect(await empty.textContent()).toContain("Entities appear as memories mention people, projects and things; `signet dream` consolidates them");
    await b.page.goto(`${td.url}/#/graph/${encodeURIComponent("Dana Weber")}`);
    await b.page.locator("main .empty[role=alert]").filter({ hasText: "No such entity for agent someone-else" }).waitFor();
    await b.page.screenshot({ path: join(ARTIFACTS, "graph-not-found.png"), fullPage: true });
    // Only the 404 the page answered with its message.
    expect(b.errors.every((e) => e.includes("404"))).toBe(true);
  }, 60_000);

  test("at 390 px the pages fit without console errors", async () => {
    const b = await fresh({ width: 390, height: 800 });
    await b.page.goto(`${td.url}/#/graph/${encodeURIComponent("Dana Weber")}`);
    await b.page.locator("svg.star").waitFor();
    expect((await b.page.locator("svg.star").boundingBox())!.width).toBeLessThanOrEqual(390);
    expect(await b.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await b.page.screenshot({ path: join(ARTIFACTS, "graph-entity-narrow.png"), fullPage: true });
    expect(b.errors).toEqual([]);
    // No alert() from any markup on any page this file opened.
    expect(dialogs).toEqual([]);
  }, 60_000);
});
