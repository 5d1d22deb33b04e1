// JSON output carries no raw C1 control or bidi character: JSON.stringify leaves them raw, and on a
// terminal U+009B starts a control sequence and U+202E reverses what follows. They are escaped the
// JSON way (`\u009b`), so the output stays valid JSON that parses to the same text, on a terminal
// and in a pipe alike. The binary is checked both ways: through a pipe and on a pseudo-terminal.
import { describe, expect, test } from "bun:test";
import { terminalJson, terminalText } from "../../src/cli/terminal-text";
import { BIN, json, run, sandbox } from "../helpers/binary";

const C1 = Array.from({ length: 0x20 }, (_, i) => 0x80 + i);
const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const UNSAFE = [0x7f, ...C1, ...BIDI];
const hex = (code: number) => code.toString(16).padStart(4, "0");
const raw = new RegExp(`[${UNSAFE.map((c) => `\\u${hex(c)}`).join("")}]`);

/** A memory meant to drive a terminal: a C1 CSI that clears the screen, and a right-to-left override. */
const HOSTILE = "deploy key \u009b2J\u009b31mOK\u202etxt.exe\u2066\u200f\u061c\u007f";

describe("terminalJson", () => {
  test("DEL, every C1 control and every bidi control become \\u escapes; the text parses back unchanged", () => {
    for (const code of UNSAFE) {
      const value = { content: `a${String.fromCharCode(code)}b`, nested: [String.fromCharCode(code)] };
      const out = terminalJson(value, 2);
      expect(out).toContain(`a\\u${hex(code)}b`);
      expect(raw.test(out)).toBe(false);
      expect(JSON.parse(out)).toEqual(value);
    }
  });

  test("everything else is JSON.stringify's own output, indented or compact", () => {
    const value = { text: "naïve café 日本語 🎉 \u00a0\u200d tab\there \u001b[0m \\u009b as typed", n: 1, list: [true, null] };
    expect(terminalJson(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(terminalJson(value)).toBe(JSON.stringify(value));
  });
});

describe("terminalText", () => {
  test("the bidi marks (LRM, RLM, ALM) are escaped like the overrides", () => {
    expect(terminalText("a\u200eb\u200fc\u061cd")).toBe("a\\u200eb\\u200fc\\u061cd");
  });
});

describe("signet list --json", () => {
  const check = (stdout: string) => {
    expect(raw.test(stdout)).toBe(false);
    expect(stdout).toContain("\\u009b2J\\u009b31mOK\\u202etxt.exe\\u2066\\u200f\\u061c\\u007f");
    expect(JSON.parse(stdout).memories.map((m: { content: string }) => m.content)).toEqual([HOSTILE]);
  };

  test("escapes them in a pipe and on a terminal", async () => {
    const s = await sandbox("embedding:\n  provider: none\n");
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    try {
      expect(json(await run(["remember", HOSTILE], { env: s.env })).content).toBe(HOSTILE);
      const piped = await run(["list", "--json"], { env: s.env });
      expect(piped.code).toBe(0);
      check(piped.stdout);
      // On a pseudo-terminal (util-linux script), where --json is what a user asks for to see raw data.
      const tty = await run(["-qec", `${BIN} list --json`, "/dev/null"], { env: s.env, bin: "/usr/bin/script" });
      expect(tty.code).toBe(0);
      check(tty.stdout.replaceAll("\r\n", "\n"));
    } finally {
      await run(["daemon", "stop"], { env: s.env });
    }
  });
});
