// What `signet mcp <server>` refuses rather than change, from the compiled binary against a real daemon
// and server-everything (docs/cli.md#mcp-bridge): a --batch line with a field other than tool and
// arguments, and a number written in digits that no JSON number holds, in --param, --json or --batch.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { EVERYTHING, NODE } from "../helpers/everything";

let s: Sandbox;
const cli = (args: string[], stdin?: string) => run(args, { env: s.env, stdin, timeoutMs: 30_000 });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
  const added = await cli(["mcp", "add", "everything", "--", NODE, EVERYTHING, "stdio"]);
  if (added.code !== 0) throw new Error(`mcp add failed: ${added.stderr}`);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("--batch -", () => {
  test("a line with a field other than tool and arguments is an error naming the line and the field; the others run", async () => {
    const input = [
      JSON.stringify({ tool: "echo", argument: { message: "misspelt" } }),
      JSON.stringify({ tool: "echo", params: ["message=words"] }),
      JSON.stringify({ tool: "echo", arguments: { message: "fine" } }),
    ].join("\n");
    const r = await cli(["mcp", "everything", "--batch", "-"], input);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual([
      { error: 'line 1: unknown field "argument": a line is {"tool": "<name>", "arguments": {...}}', code: "invalid_input" },
      { error: 'line 2: unknown field "params": a line is {"tool": "<name>", "arguments": {...}}', code: "invalid_input" },
      { content: [{ type: "text", text: "Echo: fine" }] },
    ]);
  });

  test("lines of tool and arguments alone succeed (exit 0)", async () => {
    const r = await cli(["mcp", "everything", "--batch", "-"], `${JSON.stringify({ tool: "echo", arguments: { message: "a" } })}\n${JSON.stringify({ tool: "get-tiny-image" })}\n`);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(2);
  });
});

describe("--param numbers beyond what a JSON number holds", () => {
  const big = "9007199254740993";

  test("a number parameter refuses one (exit 2), saying what it would have become; nothing is called", async () => {
    const r = await cli(["mcp", "everything", "get-sum", "--param", `a=${big}`, "--param", "b=0"]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`parameter "a": expected number, got "${big}"`);
    expect(r.stderr).toContain(`${big} would be sent as 9007199254740992`);
  });

  test("a text parameter keeps it as written; numbers a JSON number holds are summed as before", async () => {
    expect(json(await cli(["mcp", "everything", "echo", "--param", `message=${big}`])).content[0].text).toBe(`Echo: ${big}`);
    const sum = await cli(["mcp", "everything", "get-sum", "--param", "a=9007199254740990", "--param", "b=1"]);
    expect(sum.code).toBe(0);
    expect(json(sum).content[0].text).toContain("9007199254740991");
  });
});

describe("--json and --batch numbers beyond what a JSON number holds", () => {
  const big = "9007199254740993";

  test("--json refuses one (exit 2), saying what it would have become; nothing is called", async () => {
    const r = await cli(["mcp", "everything", "get-sum", "--json", `{"a": ${big}, "b": 0}`]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`--json: a JSON number holds every integer only up to ±9007199254740991: ${big} would be sent as 9007199254740992; give it as a string`);
    // As text, or as a number a JSON number holds, it goes as written.
    expect(json(await cli(["mcp", "everything", "echo", "--json", `{"message": "${big}"}`])).content[0].text).toBe(`Echo: ${big}`);
    expect(json(await cli(["mcp", "everything", "get-sum", "--json", '{"a": 9007199254740990, "b": 1e0}'])).content[0].text).toContain("9007199254740991");
  });

  test("a --batch line with one is an error naming the line; the other lines run", async () => {
    const input = [`{"tool": "get-sum", "arguments": {"a": ${big}, "b": 0}}`, JSON.stringify({ tool: "echo", arguments: { message: "fine" } })].join("\n");
    const r = await cli(["mcp", "everything", "--batch", "-"], input);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual([
      { error: `line 1: a JSON number holds every integer only up to ±9007199254740991: ${big} would be sent as 9007199254740992; give it as a string`, code: "invalid_input" },
      { content: [{ type: "text", text: "Echo: fine" }] },
    ]);
  });
});
