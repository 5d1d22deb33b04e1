// Headless Chromium for the dashboard's browser tests: Debian's `chromium` driven by playwright-core
// (no browser download). One Chromium process serves a test file; each browser a test opens is a
// fresh context of it (its own cookies and storage), which costs far less than a launch. Console
// errors and uncaught page errors are collected so a test can assert there were none. Tests that
// open one are skipped where Chromium is missing: `hasSystemTool("chromium")` (system-tool.ts); the
// file's afterAll calls closeChromium().
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { findSystemTool } from "./system-tool";

function chromiumPath(): string {
  const found = findSystemTool("chromium");
  if (!found) throw new Error("no Chromium: install Debian's `chromium` package (.ci/run does) or set CHROMIUM_PATH");
  return found;
}

/** Where screenshots and figures go: test-artifacts/dashboard (git-ignored). */
export const ARTIFACTS = resolve(import.meta.dir, "../../test-artifacts/dashboard");

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
  close(): Promise<void>;
}

let chromiumProcess: Promise<Browser> | undefined;

/** The test file's Chromium, started by the first openBrowser(). */
function sharedChromium(): Promise<Browser> {
  chromiumProcess ??= chromium.launch({
    executablePath: chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  return chromiumProcess;
}

/** Ends the Chromium openBrowser() started, if any: in the afterAll of each file that opens one. */
export async function closeChromium(): Promise<void> {
  const running = chromiumProcess;
  chromiumProcess = undefined;
  await (await running)?.close();
}

export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<TestBrowser> {
  const context = await (await sharedChromium()).newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    page,
    errors,
    close: () => context.close(),
  };
}
