// The dashboard in real headless Chromium against the compiled daemon (dist/signet), so the page is
// the one bundled into the binary (docs/dashboard.md). Screenshots and figures land in
// test-artifacts/dashboard/. Skipped where Chromium is missing (system-tool.ts).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { NODE } from "../helpers/everything";
import { ARTIFACTS, closeChromium, openBrowser, type TestBrowser } from "../helpers/browser";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { hasSystemTool } from "../helpers/system-tool";
import { eventually } from "../helpers/wait";

const FAKE_SERVER = resolve(import.meta.dir, "../helpers/fake-mcp-server.mjs");
const PAGES = ["overview", "memories", "sessions", "agents", "servers", "usage", "graph"];

let s: Sandbox;
let base: string;
let browser: TestBrowser | undefined;
const cli = (args: string[]) => run(args, { env: s.env, timeoutMs: 30_000 });
/** Failed fetches the browser itself logs as console errors (a 404 the page shows as an error line). */
const pageErrors = (b: TestBrowser) => b.errors.filter((e) => !e.includes("Failed to load resource"));

/** A memory stored through the API (local mode trusts this loopback caller), for content the CLI's argv would not carry as is. */
async function remember(body: Record<string, unknown>): Promise<{ id: string; content: string; importance: number; version: number }> {
  const response = await fetch(`${base}/api/memory/remember`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; content: string; importance: number; version: number };
}

/** The card's Modify form with `tags` and a reason, saved. */
async function saveTags(b: TestBrowser, id: string, tags: string): Promise<void> {
  await b.page.goto(`${base}/#/memories/${id}`);
  await b.page.locator("#memory-content").waitFor();
  await b.page.getByLabel("Tags").fill(tags);
  await b.page.getByLabel("Reason (required)").first().fill("tags only");
  await b.page.getByRole("button", { name: "Save" }).click();
}

async function fresh(viewport?: { width: number; height: number }): Promise<TestBrowser> {
  await browser?.close();
  browser = await openBrowser(viewport);
  return browser;
}

describe.skipIf(!hasSystemTool("chromium"))("dashboard in Chromium", () => {
  beforeAll(async () => {
    s = await sandbox("embedding:\n  provider: none\n");
    expect((await cli(["daemon", "start"])).code).toBe(0);
    expect((await cli(["mcp", "add", "fake", "--", NODE, FAKE_SERVER])).code).toBe(0);
    base = `http://127.0.0.1:${s.port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await closeChromium();
    await cli(["daemon", "stop"]);
  });

  test("every page loads without console errors, at 1280×800 and narrow", async () => {
    const b = await fresh();
    const started = Date.now();
    await b.page.goto(`${base}/#/overview`);
    await b.page.locator(".card .big").first().waitFor();
    const timing = await b.page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByName("first-contentful-paint")[0];
      const bytes = performance.getEntriesByType("resource").reduce((n, r) => n + (r as PerformanceResourceTiming).encodedBodySize, nav.encodedBodySize);
      return { domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd), firstContentfulPaintMs: fcp ? Math.round(fcp.startTime) : null, overviewRenderedMs: Math.round(performance.now()), pageBytes: bytes };
    });
    writeFileSync(join(ARTIFACTS, "timing.json"), `${JSON.stringify({ ...timing, wallMs: Date.now() - started }, null, 2)}\n`);
    console.error(`dashboard timing (shared, busy machine): ${JSON.stringify(timing)}`);
    for (const name of PAGES) {
      await b.page.goto(`${base}/#/${name}`);
      await expect(b.page.locator(`nav a[href="#/${name}"]`).getAttribute("aria-current")).resolves.toBe("page");
      await b.page.locator("main h1").waitFor();
      await b.page.waitForLoadState("networkidle");
      expect(await b.page.locator("main .error").count()).toBe(0);
      await b.page.screenshot({ path: join(ARTIFACTS, `${name}-1280.png`), fullPage: true });
    }
    const narrow = await fresh({ width: 390, height: 800 });
    for (const name of PAGES) {
      await narrow.page.goto(`${base}/#/${name}`);
      await narrow.page.locator("main h1").waitFor();
      await narrow.page.waitForLoadState("networkidle");
      await narrow.page.screenshot({ path: join(ARTIFACTS, `${name}-narrow.png`), fullPage: true });
    }
    expect([...b.errors, ...narrow.errors]).toEqual([]);
  }, 120_000);

  test("a memory is searched, edited, forgotten and recovered in the UI", async () => {
    const stored = json(await cli(["remember", "the deploy script lives in ops/deploy.sh", "--json"]));
    const b = await fresh();
    await b.page.goto(`${base}/#/memories`);
    await b.page.getByLabel("Search (empty: browse)").fill("deploy script");
    await b.page.getByRole("button", { name: "Search" }).click();
    await b.page.getByRole("link", { name: /ops\/deploy\.sh/ }).click();
    await b.page.locator("#memory-content").waitFor();
    expect(b.page.url()).toContain(stored.id);

    await b.page.getByLabel("Content").fill("the deploy script lives in ops/release.sh");
    await b.page.getByLabel("Reason (required)").first().fill("moved in the repo");
    await b.page.getByRole("button", { name: "Save" }).click();
    await b.page.getByText("Saved.").waitFor();
    // The card is loaded again after the status line says so.
    await b.page.locator("#memory-content").filter({ hasText: "ops/release.sh" }).waitFor();
    expect(await b.page.locator("#memory-content").textContent()).toBe("the deploy script lives in ops/release.sh");
    expect(json(await cli(["get", stored.id, "--json"])).content).toBe("the deploy script lives in ops/release.sh");

    await b.page.locator('input[name="forget-reason"]').fill("obsolete");
    await b.page.getByRole("button", { name: "Forget" }).click();
    await b.page.getByRole("button", { name: "Recover" }).waitFor();
    expect(json(await cli(["get", stored.id, "--json"])).deleteReason).toBe("obsolete");

    await b.page.getByRole("button", { name: "Recover" }).click();
    await b.page.getByText("Recovered.").waitFor();
    const recovered = json(await cli(["get", stored.id, "--json"]));
    expect(recovered.deletedAt).toBeNull();
    await b.page.getByRole("button", { name: "Forget" }).waitFor();
    expect(await b.page.locator("table tbody tr").count()).toBe(4); // create, modify, forget, recover
    await b.page.screenshot({ path: join(ARTIFACTS, "memory-card.png"), fullPage: true });
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a tool called from the CLI appears in the usage panel by its own refresh", async () => {
    const b = await fresh();
    await b.page.goto(`${base}/?refresh=1#/usage`);
    await b.page.locator("#usage-updated").filter({ hasText: "Updated" }).waitFor();
    expect(await b.page.locator('[data-tool="fake/cwd"]').count()).toBe(0);
    const called = await cli(["mcp", "fake", "cwd"]);
    expect(called.code).toBe(0);
    // No reload: the panel's timer fetches again and the row appears.
    await b.page.locator('[data-tool="fake/cwd"]').waitFor({ timeout: 15_000 });
    expect(await b.page.locator('[data-tool="fake/cwd"]').textContent()).toContain("1 / 0");
    expect(await b.page.locator('[data-server="fake"] svg.spark').count()).toBe(1);
    await b.page.screenshot({ path: join(ARTIFACTS, "usage-after-call.png"), fullPage: true });
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a tool called from the servers page is recorded as a dashboard call", async () => {
    const b = await fresh();
    await b.page.goto(`${base}/#/servers/fake`);
    await b.page.getByText("text", { exact: true }).click();
    await b.page.getByLabel(/bytes/).fill("5");
    await b.page.getByRole("button", { name: "Call text" }).click();
    await b.page.getByText("xxxxx").waitFor();
    // Recorded as an operator's call made from the dashboard (analytics flushes within 1 s).
    const db = new Database(join(s.dataDir, "memory", "memories.db"), { readonly: true });
    try {
      const recorded = () => db.query<{ source: string; client: string | null }, []>("SELECT source, client FROM mcp_invocations WHERE server = 'fake' AND tool = 'text'").all();
      expect(await eventually(() => recorded().length === 1)).toBe(true);
      expect(recorded()).toEqual([{ source: "cli", client: "dashboard" }]);
    } finally {
      db.close();
    }
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a server is disabled and enabled again from the servers page, with the owner's admin token", async () => {
    const b = await fresh();
    await b.page.goto(`${base}/#/servers`);
    await b.page.getByRole("button", { name: "Disable fake" }).click();
    // Local mode needs no token to read, but changing the installation needs the owner's.
    await b.page.locator("#token-form").waitFor();
    expect(await b.page.locator("#token-form").textContent()).toContain("admin token");
    const admin = (await Bun.file(join(s.dataDir, ".daemon", "admin.token")).text()).trim();
    await b.page.getByLabel("API token").fill(admin);
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await b.page.getByRole("button", { name: "Disable fake" }).click();
    await b.page.getByRole("button", { name: "Enable fake" }).waitFor();
    const listed = async () => JSON.parse((await cli(["mcp", "list", "--json"])).stdout);
    expect((await listed()).servers.find((x: { name: string }) => x.name === "fake").enabled).toBe(false);
    await b.page.getByRole("button", { name: "Enable fake" }).click();
    await b.page.getByRole("button", { name: "Disable fake" }).waitFor();
    expect((await listed()).servers.find((x: { name: string }) => x.name === "fake").enabled).toBe(true);
    // Only the refused PATCH, which the page answered with the sign-in form.
    expect(b.errors.every((e) => e.includes("401"))).toBe(true);
  }, 60_000);
  test("a tags-only edit leaves content with CR line ends as it is", async () => {
    const stored = await remember({ content: "line one\r\nline two\rline three" });
    const b = await fresh();
    await saveTags(b, stored.id, "kept");
    await b.page.getByText("Saved.").waitFor();
    const after = json(await cli(["get", stored.id, "--json"]));
    // The textarea shows "\n" for both; only the tags were changed, so only they were sent.
    expect(after.content).toBe("line one\r\nline two\rline three");
    expect(after.tags).toEqual(["kept"]);
    expect(after.history.map((v: { content: string }) => v.content)).toEqual([stored.content, stored.content]);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a memory whose importance is off the 0.05 grid is saved, and a refused field says why", async () => {
    const stored = await remember({ content: "the release train leaves on thursdays", importance: 0.33 });
    const b = await fresh();
    await saveTags(b, stored.id, "release");
    await b.page.getByText("Saved.").waitFor();
    const after = json(await cli(["get", stored.id, "--json"]));
    expect([after.importance, after.tags, after.version]).toEqual([0.33, ["release"], 2]);

    // The browser's own validation refuses 1.5; the status line says so instead of nothing happening.
    await b.page.locator("#memory-content").filter({ hasText: "thursdays" }).waitFor();
    await b.page.getByLabel("Importance").fill("1.5");
    await b.page.getByLabel("Reason (required)").first().fill("too important");
    await b.page.getByRole("button", { name: "Save" }).click();
    await b.page.locator("p[role=status].error").filter({ hasText: "Importance" }).waitFor();
    expect(await b.page.locator("p[role=status]").textContent()).toMatch(/^Not sent: Importance: .*1/);
    expect(json(await cli(["get", stored.id, "--json"])).version).toBe(2);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("a number parameter takes a fraction in the servers page's call form", async () => {
    const b = await fresh();
    await b.page.goto(`${base}/#/servers/fake`);
    await b.page.getByText("text", { exact: true }).click();
    await b.page.getByLabel(/bytes/).fill("0.7");
    await b.page.getByRole("button", { name: "Call text" }).click();
    await b.page.getByText("Result:").waitFor();
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("minimum importance is offered only where it applies: searching, not browsing", async () => {
    const b = await fresh();
    await b.page.goto(`${base}/#/memories`);
    const importance = b.page.getByLabel("Min importance (search only)");
    await importance.waitFor();
    expect(await importance.isDisabled()).toBe(true);
    await b.page.getByLabel("Search (empty: browse)").fill("release");
    expect(await importance.isDisabled()).toBe(false);
    await importance.fill("0.33");
    await b.page.getByRole("button", { name: "Search" }).click();
    await b.page.getByText(/result\(s\)/).waitFor();
    expect(await b.page.locator("main .error").count()).toBe(0);
    await b.page.getByLabel("Search (empty: browse)").fill("");
    expect(await importance.isDisabled()).toBe(true);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("an excerpt is cut between characters, never inside an emoji", async () => {
    const content = `${"a".repeat(239)}😀 and more after the cut`;
    await remember({ content });
    const b = await fresh();
    await b.page.goto(`${base}/#/memories`);
    const item = b.page.locator("main .list a .content").filter({ hasText: "aaaa" });
    await item.waitFor();
    expect(await item.textContent()).toBe(`${"a".repeat(239)}😀…`);
    expect(b.errors).toEqual([]);
  }, 60_000);

  test("hand-typed routes: inherited names and bad escapes get a page, and the menu keeps working", async () => {
    const b = await fresh();
    for (const name of ["toString", "constructor", "__proto__", "nosuchpage"]) {
      await b.page.goto(`${base}/#/${name}`);
      await b.page.locator("main h1").filter({ hasText: "Not found" }).waitFor();
      expect(await b.page.locator("nav a[aria-current]").count()).toBe(0);
      await b.page.getByRole("link", { name: "Memories" }).click();
      await b.page.locator("main h1").filter({ hasText: "Memories" }).waitFor();
    }
    // A malformed escape is kept as typed: that memory does not exist, and the card says so.
    await b.page.goto(`${base}/#/memories/%E0%A4%A`);
    await b.page.locator("main h1").filter({ hasText: "Memory" }).waitFor();
    await b.page.locator("main .error").waitFor();
    await b.page.getByRole("link", { name: "Overview" }).click();
    await b.page.locator("main .card .big").first().waitFor();
    expect(pageErrors(b)).toEqual([]);
  }, 60_000);
});
