// The dashboard's static routes (docs/dashboard.md): served through the one guard, public (no data
// in them), refused to forged callers; and in team mode the page asks for a token, kept in
// sessionStorage only. The browser part runs Debian's chromium (test/helpers/browser.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ARTIFACTS, closeChromium, openBrowser } from "../helpers/browser";
import { hasSystemTool } from "../helpers/system-tool";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, forgedCallers } from "../helpers/memory-api";

afterAll(closeChromium);

async function assetPaths(td: TestDaemon): Promise<string[]> {
  const html = await (await td.fetch("/")).text();
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe("dashboard static routes", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("GET / is the page, with its script and style under /assets/ and a strict CSP", async () => {
    const res = await td.fetch("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const paths = await assetPaths(td);
    expect(paths.some((p) => p.endsWith(".js"))).toBe(true);
    expect(paths.some((p) => p.endsWith(".css"))).toBe(true);
    for (const path of paths) {
      const asset = await td.fetch(path);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(path.endsWith(".js") ? /javascript/ : /text\/css/);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  test("an unknown asset is a JSON 404, and a path outside /assets/ is not served", async () => {
    const res = await td.fetch("/assets/nope.js");
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("not_found");
    expect((await td.fetch("/assets/..%2Fpackage.json")).status).toBe(404);
    expect((await td.fetch("/index.html")).status).toBe(404);
  });

  test("forged callers are refused: wrong Host, foreign Origin, cross-site fetch", async () => {
    const port = new URL(td.url).port;
    const paths = ["/", ...(await assetPaths(td))];
    for (const path of paths) {
      // Also a loopback name with another port: the daemon answers only for its own.
      const forged = [...forgedCallers(td), { host: `localhost:${Number(port) + 1}` }];
      for (const headers of forged) {
        const res = await td.fetch(path, { headers });
        expect(res.status).toBe(403);
        expect((await res.json()).code).toBe("forbidden");
      }
    }
  });
});

describe("dashboard in team mode", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
  });
  afterAll(() => td.stop());

  test("the page is public, its data is not", async () => {
    expect((await td.fetch("/")).status).toBe(200);
    for (const path of await assetPaths(td)) expect((await td.fetch(path)).status).toBe(200);
    expect((await td.fetch("/api/memories")).status).toBe(401);
  });

  test.skipIf(!hasSystemTool("chromium"))("the browser is asked for a token, keeps it in sessionStorage only, and sends it as Bearer", async () => {
    const b = await openBrowser();
    try {
      const sent: string[] = [];
      b.page.on("request", (r) => {
        if (r.url().includes("/api/")) sent.push(r.headers().authorization ?? "");
      });
      await b.page.goto(`${td.url}/#/overview`);
      await b.page.locator("#token-form").waitFor();
      await b.page.getByLabel("API token").fill("not-a-token");
      await b.page.getByRole("button", { name: "Sign in" }).click();
      await b.page.getByText("The token was refused").waitFor();

      const admin = td.daemon.context.credentials.adminToken;
      await b.page.getByLabel("API token").fill(admin);
      await b.page.getByRole("button", { name: "Sign in" }).click();
      await b.page.locator(".card .big").first().waitFor();
      const storage = await b.page.evaluate(() => ({ session: sessionStorage.getItem("signet.token"), local: localStorage.length }));
      expect(storage).toEqual({ session: admin, local: 0 });
      expect(sent.at(-1)).toBe(`Bearer ${admin}`);
      // Only the 401s of the refused attempts, which the page answers with the token form.
      expect(b.errors.every((e) => e.includes("401"))).toBe(true);
    } finally {
      await b.close();
    }
  }, 60_000);
});

describe.skipIf(!hasSystemTool("chromium"))("the sessions pages in the browser", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("a session's memories show their content (as text) with their id; the hooks toggle says what it does", async () => {
    // Markup in a memory is shown as the text it is; a long memory is cut short.
    const pinned = await call(td, "POST", "/api/memory/remember", { body: { content: "Deploys need <b>two</b> approvals", pinned: true } });
    const long = await call(td, "POST", "/api/memory/remember", { body: { content: `Release notes live in docs/CHANGELOG.md ${"and more detail ".repeat(30)}`, pinned: true } });
    const key = "dashboard-session-1";
    const started = await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: key, harness: "claude-code", project: "/src/shop" } });
    expect(started.body.memoryIds).toEqual(expect.arrayContaining([pinned.body.id, long.body.id]));
    const b = await openBrowser();
    try {
      await b.page.goto(`${td.url}/#/sessions/${key}`);
      const item = b.page.locator("ul.list li").filter({ hasText: "Deploys need" });
      await item.waitFor();
      expect(await item.locator("a .content").textContent()).toBe("Deploys need <b>two</b> approvals");
      expect(await item.locator("b").count()).toBe(0);
      expect(await item.locator("a").getAttribute("href")).toBe(`#/memories/${pinned.body.id}`);
      expect(await item.textContent()).toContain(pinned.body.id);
      expect(await item.textContent()).toContain("session-start");
      const cut = await b.page.locator("ul.list li").filter({ hasText: "Release notes" }).locator("a .content").textContent();
      expect(cut!.length).toBeLessThan(long.body.content.length);
      expect(cut).toEndWith("…");
      await b.page.screenshot({ path: join(ARTIFACTS, "session-detail.png"), fullPage: true });

      // The toggle: what the hooks do now, and a button naming what it will do.
      const card = b.page.locator(".card").first();
      expect(await card.textContent()).toContain("Hooks on: Signet injects memories into this session and records it");
      await b.page.getByRole("button", { name: "Bypass hooks" }).click();
      await b.page.getByRole("button", { name: "Turn hooks back on" }).waitFor();
      expect(await card.textContent()).toContain("Hooks bypassed: this session gets no memories from Signet and nothing of it is recorded");
      expect((await call(td, "GET", `/api/sessions/${key}`)).body.bypassed).toBe(true);
      await b.page.goto(`${td.url}/#/sessions`);
      const row = b.page.locator("tr").filter({ hasText: key });
      await row.waitFor();
      expect(await row.textContent()).toContain("Hooks bypassed");
      await row.getByRole("button", { name: "Turn hooks back on" }).click();
      await row.getByRole("button", { name: "Bypass hooks" }).waitFor();
      await b.page.screenshot({ path: join(ARTIFACTS, "sessions-list.png"), fullPage: true });
      expect((await call(td, "GET", `/api/sessions/${key}`)).body.bypassed).toBe(false);
      expect(b.errors).toEqual([]);
    } finally {
      await b.close();
    }
  }, 60_000);
});
