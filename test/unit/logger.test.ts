// src/logger.ts: the daemon's timestamped lines and the `signet:` / `signet-mcp:` lines, on stderr
// only (signet-mcp's stdout is the protocol), with no colors, and no record folded into another.
import { afterEach, beforeEach, describe, expect, spyOn, test, type Mock } from "bun:test";
import { createLogger, lazyLogger } from "../../src/logger";

let stderr: Mock<typeof process.stderr.write>;
let stdout: Mock<typeof process.stdout.write>;

beforeEach(() => {
  stderr = spyOn(process.stderr, "write").mockImplementation(() => true);
  stdout = spyOn(process.stdout, "write").mockImplementation(() => true);
});

afterEach(() => {
  const toStdout = stdout.mock.calls.length;
  stderr.mockRestore();
  stdout.mockRestore();
  expect(toStdout).toBe(0);
});

const written = () => stderr.mock.calls.map((c) => String(c[0])).join("");
const TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`;

describe("daemon", () => {
  test("one line a record: ISO UTC time, level padded to 5, message", () => {
    const log = createLogger("daemon");
    log.info("listening");
    log.warn("ended 2 MCP server process group(s)");
    log.error("keyword index: loading failed");
    expect(written()).toMatch(
      new RegExp(`^${TIME} info  listening\n${TIME} warn  ended 2 MCP server process group\\(s\\)\n${TIME} error keyword index: loading failed\n$`),
    );
  });

  test("an unexpected failure's stack follows its line; another cause is appended", () => {
    const log = createLogger("daemon");
    const err = new TypeError("x is undefined");
    log.error("GET /api/memories failed unexpectedly", err);
    log.error("shutdown failed", "a string");
    expect(written()).toMatch(new RegExp(`^${TIME} error GET /api/memories failed unexpectedly\nTypeError: x is undefined\n\\s+at `));
    expect(written()).toContain(`${err.stack}\n`);
    expect(written()).toMatch(new RegExp(`\n${TIME} error shutdown failed: a string\n$`));
  });

  test("repeated records are all written", () => {
    const log = createLogger("daemon");
    for (let i = 0; i < 10; i++) log.warn("same");
    expect(written().split("\n").filter((l) => l.endsWith(" warn  same"))).toHaveLength(10);
  });
});

describe("signet and signet-mcp", () => {
  test("`<name>: <message>`, whatever the level", () => {
    createLogger("signet").error('no memory with id "m1"');
    createLogger("signet-mcp").info("started the daemon at http://127.0.0.1:3850 (pid 42)");
    createLogger("signet-mcp").warn("dropped 3 invocation record(s)");
    expect(written()).toBe(
      'signet: no memory with id "m1"\nsignet-mcp: started the daemon at http://127.0.0.1:3850 (pid 42)\nsignet-mcp: dropped 3 invocation record(s)\n',
    );
  });

  test("no colors, even with FORCE_COLOR set", () => {
    const saved = process.env.FORCE_COLOR;
    process.env.FORCE_COLOR = "1";
    try {
      createLogger("signet").error("refused");
      createLogger("daemon").error("refused", new Error("why"));
    } finally {
      if (saved === undefined) delete process.env.FORCE_COLOR;
      else process.env.FORCE_COLOR = saved;
    }
    expect(written()).not.toContain("\x1b");
  });
});

describe("lazyLogger", () => {
  test("writes what createLogger writes, each record as it comes, the stack after its line", () => {
    const log = lazyLogger("signet");
    expect(written()).toBe("");
    log.info("started the daemon");
    log.warn("careful");
    log.error("failed", new Error("boom"));
    expect(written()).toMatch(/^signet: started the daemon\nsignet: careful\nsignet: failed\nError: boom\n\s+at /);
  });
});
