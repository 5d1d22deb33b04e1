// Base64 forms broken by line breaks (docs/security.md#redaction): runs of `\n` and `\r\n` of any
// length between any two characters, with the output cut into chunks anywhere, are still redacted;
// line breaks alone pass through unchanged and are not held back.
import { describe, expect, test } from "bun:test";
import { MAX_HELD_LINE_BREAKS, REDACTED, Redactor } from "../../src/core/secrets/redactor";

const SECRET = "tok-9f8e7d6c5b4a";

function redactAll(values: string[], chunks: string[]): string {
  const r = new Redactor(values);
  return chunks.map((c) => r.push(c)).join("") + r.end();
}

/** `encoded` with `breaks(i)` after its character i (none after the last), and where each character landed. */
function broken(encoded: string, breaks: (i: number) => string): { text: string; at: number[] } {
  let text = "";
  const at: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    at.push(text.length);
    text += encoded[i]! + (i < encoded.length - 1 ? breaks(i) : "");
  }
  return { text, at };
}

/** Characters pushed but not yet released, for text the redactor leaves unchanged. */
function maxHeld(values: string[], chunks: Iterable<string>): { out: string; held: number } {
  const r = new Redactor(values);
  const parts: string[] = [];
  let pushed = 0;
  let released = 0;
  let held = 0;
  for (const chunk of chunks) {
    pushed += chunk.length;
    const out = r.push(chunk);
    released += out.length;
    parts.push(out);
    held = Math.max(held, pushed - released);
  }
  parts.push(r.end());
  return { out: parts.join(""), held };
}

describe("redactor: base64 broken by line breaks", () => {
  test("20 characters, a run of line breaks, then the rest in a later chunk", () => {
    const encoded = Buffer.from(SECRET).toString("base64");
    for (const run of [10, 100, 10_000, MAX_HELD_LINE_BREAKS]) {
      for (const eol of ["\n", "\r\n"]) {
        const breaks = eol.repeat(run / eol.length);
        const out = redactAll([SECRET], [`out: ${encoded.slice(0, 20)}${breaks}`, `${encoded.slice(20)}\n`]);
        expect(out).toBe(`out: ${REDACTED}\n`);
      }
    }
  });

  test("runs of \\n and \\r\\n between every character, inside longer base64 at each alignment, split at every position", () => {
    const value = "s3cr3t!";
    const runs = (i: number) => (i % 2 === 0 ? "\n".repeat(10) : "\r\n".repeat(1 + (i % 5)));
    for (const prefix of ["", "k", "kk"]) {
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = Buffer.from(`${prefix}${value}zz`).toString(encoding);
        // The characters that carry bits of the value only: what must not survive.
        const first = Math.ceil((prefix.length * 8) / 6);
        const last = Math.floor(((prefix.length + value.length) * 8) / 6);
        const core = encoded.slice(first, last);
        const { text, at } = broken(encoded, runs);
        const expected = text.slice(0, at[first]) + REDACTED + text.slice(at[last - 1]! + 1);
        // One value character short of the form: nothing to redact, the text passes unchanged.
        const nearMiss = broken(encoded.slice(0, last - 1), runs).text;
        const check = (cut: (t: string) => string[]) => {
          const out = redactAll([value], cut(text));
          expect(out.replace(/[\r\n]/g, "")).not.toContain(core);
          expect(out).toBe(expected);
          expect(redactAll([value], cut(nearMiss))).toBe(nearMiss);
        };
        check((t) => [...t]);
        for (let i = 0; i <= text.length; i++) {
          check((t) => [t.slice(0, i), t.slice(i)]);
          for (let j = i; j <= text.length; j += 7) check((t) => [t.slice(0, i), t.slice(i, j), t.slice(j)]);
        }
      }
    }
  });

  test("10 MB of line breaks pass unchanged and are not held; after the start of a form, only up to the cap", () => {
    const breaks = Array.from({ length: 160 }, (_, i) => (i % 2 === 0 ? "\n".repeat(64 * 1024) : "\r\n".repeat(32 * 1024)));
    const alone = maxHeld([SECRET], breaks);
    expect(alone.out.length).toBe(10 * 1024 * 1024);
    expect(alone.out).toBe(breaks.join(""));
    // No form can start with a line break: at most what the value as written could start with waits.
    expect(alone.held).toBeLessThan(SECRET.length);

    const encoded = Buffer.from(SECRET).toString("base64");
    const chunks = [encoded.slice(0, 20), ...breaks];
    const started = maxHeld([SECRET], chunks);
    expect(started.out).toBe(chunks.join(""));
    expect(started.held).toBeLessThanOrEqual(MAX_HELD_LINE_BREAKS + encoded.length);
  });
});
