// The dashboard in real headless Chromium against a compiled daemon in `team` mode: what the page
// does with tokens of each role (docs/dashboard.md#auth): a readonly token sees every card it may
// read, an operator token is asked for the owner's admin token to enable or disable a server, and a
// token that cannot be sent is refused at sign-in. Skipped where Chromium is missing (system-tool.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { NODE } from "../helpers/everything";
import { closeChromium, openBrowser, type TestBrowser } from "../helpers/browser";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { hasSystemTool } from "../helpers/system-tool";

const FAKE_SERVER = resolve(import.meta.dir, "../helpers/fake-mcp-server.mjs");

let s: Sandbox;
let base: string;
let admin: string;
let browser: TestBrowser | undefined;
const cli = (args: string[]) => run(args, { env: s.env, timeoutMs: 30_000 });
const token = async (role: string) => json(await cli(["token", "create", "--role", role])).token as string;
/** Refused requests the browser itself logs as console errors (each answered by the page). */
const pageErrors = (b: TestBrowser) => b.errors.filter((e) => !e.includes("Failed to load resource"));

async function fresh(): Promise<TestBrowser> {
  await browser?.close();
  browser = await openBrowser();
  return browser;
}

/** A fresh browser on `route`, signed in with `secret` through the page's own form. */
async function signedIn(secret: string, route: string): Promise<TestBrowser> {
  const b = await fresh();
  await b.page.goto(`${base}/#/${route}`);
  await b.page.getByLabel("API token").fill(secret);
  await b.page.getByRole("button", { name: "Sign in" }).click();
  return b;
}

const cardOf = (b: TestBrowser, label: string) => b.page.locator("main .cards .card").filter({ has: b.page.locator(".muted", { hasText: label }) });

describe.skipIf(!hasSystemTool("chromium"))("dashboard in Chromium, team mode", () => {
  beforeAll(async () => {
    s = await sandbox("auth:\n  mode: team\nembedding:\n  provider: none\n");
    expect((await cli(["daemon", "start"])).code).toBe(0);
    expect((await cli(["mcp", "add", "fake", "--", NODE, FAKE_SERVER])).code).toBe(0);
    expect((await cli(["remember", "the staging database is heron-8"])).code).toBe(0);
    base = `http://127.0.0.1:${s.port}`;
    admin = (await Bun.file(join(s.dataDir, ".daemon", "admin.token")).text()).trim();
  });

  afterAll(async () => {
    await browser?.close();
    await closeChromium();
    await cli(["daemon", "stop"]);
  });

  test("a readonly token sees every overview card its role may read, and is told which it may not", async () => {
    const b = await signedIn(await token("readonly"), "overview");
    await cardOf(b, "MCP servers").filter({ hasText: "role does not allow" }).waitFor();
    expect(await cardOf(b, "MCP servers").textContent()).toContain("mcp-call");
    expect(await cardOf(b, "Daemon").locator(".big").textContent()).toBe("ok");
    expect(await cardOf(b, "Sessions").locator(".big").textContent()).toBe("0");
    expect(await b.page.getByRole("link", { name: /heron-8/ }).count()).toBe(1);
    // The store-wide count says whose it is: /health counts every agent's memories.
    expect(await cardOf(b, "Memories").textContent()).toContain("all agents");
    expect(await b.page.locator("main .error").count()).toBe(0);
    expect(pageErrors(b)).toEqual([]);
  }, 60_000);

  test("an operator token is asked for the owner's admin token to disable a server", async () => {
    const b = await signedIn(await token("operator"), "servers");
    await b.page.getByRole("button", { name: "Disable fake" }).click();
    // The operator's token passes the role check but is not the owner's: 403, and the form asks for it.
    await b.page.locator("#token-form").waitFor();
    expect(await b.page.locator("#token-message").textContent()).toContain("admin token");
    await b.page.getByLabel("API token").fill(admin);
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await b.page.getByRole("button", { name: "Disable fake" }).click();
    await b.page.getByRole("button", { name: "Enable fake" }).waitFor();
    const fake = async () => json(await cli(["mcp", "list", "--json"])).servers.find((x: { name: string }) => x.name === "fake");
    expect((await fake()).enabled).toBe(false);
    await b.page.getByRole("button", { name: "Enable fake" }).click();
    await b.page.getByRole("button", { name: "Disable fake" }).waitFor();
    expect((await fake()).enabled).toBe(true);
    expect(pageErrors(b)).toEqual([]);
  }, 60_000);

  test("a token that cannot be sent is refused at sign-in, and one already kept is dropped", async () => {
    const b = await signedIn("sgt_€", "overview");
    await b.page.locator("#token-message").filter({ hasText: "not an API token" }).waitFor();
    expect(await b.page.locator("#token-message").textContent()).toContain('"€"');
    expect(await b.page.evaluate(() => sessionStorage.getItem("signet.token"))).toBeNull();

    // One kept before the check (or by hand) would make every request fail: it is dropped instead.
    await b.page.evaluate(() => sessionStorage.setItem("signet.token", "sgt_€"));
    await b.page.reload();
    await b.page.locator("#token-message").filter({ hasText: "dropped" }).waitFor();
    expect(await b.page.evaluate(() => sessionStorage.getItem("signet.token"))).toBeNull();
    await b.page.getByLabel("API token").fill(admin);
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await b.page.getByRole("link", { name: /heron-8/ }).waitFor();
    expect(pageErrors(b)).toEqual([]);
  }, 60_000);
});
