// Headless Chromium for the dashboard's browser tests: Debian's `chromium` driven by playwright-core
// (no browser download), a fresh profile per browser. Console errors and uncaught page errors are
// collected so a test can assert there were none. Tests that open one are skipped where Chromium is
// missing: `hasSystemTool("chromium")` (system-tool.ts).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
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

export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "signet-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    viewport,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const page = context.pages()[0] ?? (await context.newPage());
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
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
