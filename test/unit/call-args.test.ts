// `signet mcp <server> <tool> ...` flags, read by the CLI's own parseArgs (src/cli/parse-args.ts).
import { describe, expect, test } from "bun:test";
import { parseCallArgs } from "../../src/cli/mcp/call";
import { UsageError } from "../../src/cli/errors";

describe("parseCallArgs", () => {
  test("repeated --param / -p, words, and the other flags", () => {
    expect(parseCallArgs(["echo", "-p", "a=1", "--param", "b=-2", "--timeout", "5", "--pretty", "--save-dir", "out", "--url", "http://127.0.0.1:1", "--agent", "x"])).toEqual({
      params: ["a=1", "b=-2"],
      timeoutMs: 5,
      pretty: true,
      saveDir: "out",
      url: "http://127.0.0.1:1",
      agent: "x",
      words: ["echo"],
    } as never);
  });

  test("--json alone asks for JSON output; followed by an object or - it is the arguments", () => {
    expect(parseCallArgs(["echo", "--json"])).toMatchObject({ json: true, jsonArgs: undefined, words: ["echo"] });
    expect(parseCallArgs(["echo", "--json", '{"message":"hi"}'])).toMatchObject({ json: undefined, jsonArgs: '{"message":"hi"}' });
    expect(parseCallArgs(["echo", "--json", "-"])).toMatchObject({ jsonArgs: "-" });
    expect(parseCallArgs(["echo", "--json={}"])).toMatchObject({ jsonArgs: "{}" });
    expect(parseCallArgs(["--json", "echo"])).toMatchObject({ json: true, words: ["echo"] });
  });

  test("unknown options, missing values and bad timeouts are usage errors naming the problem", () => {
    const fails = (args: string[]) => {
      try {
        parseCallArgs(args);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${args.join(" ")}`);
    };
    expect(fails(["echo", "--bogus"])).toStartWith("unknown option --bogus; valid options: --param k=v");
    expect(fails(["echo", "--param"])).toContain("--param");
    expect(fails(["echo", "--timeout", "soon"])).toContain("is not a number of milliseconds");
    expect(fails(["echo", "--timeout", "0"])).toContain("is not a number of milliseconds");
    expect(fails(["echo", "--pretty=yes"])).toContain("--pretty");
  });
});
