// Programs some tests need that npm does not install: Chromium (the dashboard in a browser), zsh and
// fish (completion scripts in the real shells), bubblewrap (secret exec's sandbox), PostgreSQL's
// server (the PostgreSQL store). Where one is
// missing, the tests that need it are skipped with one line saying what to install, so `npm install
// && npm test` passes on a machine with only Node.js and npm. With SIGNET_REQUIRE_SYSTEM_TOOLS=1
// (.ci/run sets it) a missing one fails the test file instead, so CI never skips them.
import { existsSync } from "node:fs";
import { probeSandbox } from "../../src/os/sandbox";
import { findPostgresBin } from "./postgres";

interface SystemTool {
  /** The tests that need it, as the skip line names them. */
  tests: string;
  /** What to install, as the skip line says it. */
  install: string;
  /** The program's path, or null where it is missing (or, for bubblewrap, does not work). */
  find(): string | null;
}

const TOOLS = {
  chromium: {
    tests: "dashboard browser tests",
    install: "chromium (apt-get install chromium), or set CHROMIUM_PATH",
    find: () => {
      const given = process.env.CHROMIUM_PATH;
      if (given) return existsSync(given) ? given : null;
      return Bun.which("chromium") ?? Bun.which("chromium-browser");
    },
  },
  zsh: { tests: "zsh completion tests", install: "zsh (apt-get install zsh)", find: () => Bun.which("zsh") },
  fish: { tests: "fish completion tests", install: "fish (apt-get install fish)", find: () => Bun.which("fish") },
  // Found as the daemon finds it, and only where it can make a sandbox here (user namespaces).
  bubblewrap: {
    tests: "secret exec sandbox tests",
    install: "bubblewrap (apt-get install bubblewrap) where user namespaces are allowed",
    find: () => probeSandbox(process.env.PATH).sandbox?.bwrap ?? null,
  },
  postgres: { tests: "PostgreSQL store tests", install: "postgresql (apt-get install postgresql)", find: findPostgresBin },
} satisfies Record<string, SystemTool>;

type ToolName = keyof typeof TOOLS;

const announced = new Set<ToolName>();

/** The tool's path, or null where it is missing. */
export function findSystemTool(name: ToolName): string | null {
  return TOOLS[name].find();
}

/**
 * Whether the tests that need `name` can run. Where it is missing: false, after one line on stderr
 * (once per run) saying what to install; with SIGNET_REQUIRE_SYSTEM_TOOLS=1 it throws instead,
 * failing the test file that asked.
 */
export function hasSystemTool(name: ToolName): boolean {
  if (findSystemTool(name) !== null) return true;
  const { tests, install } = TOOLS[name];
  if (process.env.SIGNET_REQUIRE_SYSTEM_TOOLS === "1") {
    throw new Error(`${tests} need ${install}; SIGNET_REQUIRE_SYSTEM_TOOLS=1 makes a missing one a failure`);
  }
  if (!announced.has(name)) {
    announced.add(name);
    console.error(`${tests} skipped: install ${install}`);
  }
  return false;
}
