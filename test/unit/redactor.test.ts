// The streaming redactor (docs/security.md#redaction): values as written, base64 (both alphabets, any
// alignment) and URL-encoded, also when a chunk boundary falls anywhere inside them.
import { describe, expect, test } from "bun:test";
import { REDACTED, Redactor } from "../../src/core/secrets/redactor";

const VALUE = "pa55/w0rd+x=y&z?long-enough é";

function redactAll(values: string[], chunks: string[]): string {
  const r = new Redactor(values);
  return chunks.map((c) => r.push(c)).join("") + r.end();
}

describe("redactor", () => {
  test("a value split at every position across two and three chunks is redacted", () => {
    const text = `before ${VALUE} after`;
    for (let i = 0; i <= text.length; i++) {
      expect(redactAll([VALUE], [text.slice(0, i), text.slice(i)])).toBe(`before ${REDACTED} after`);
      const j = Math.min(text.length, i + 5);
      expect(redactAll([VALUE], [text.slice(0, i), text.slice(i, j), text.slice(j)])).toBe(`before ${REDACTED} after`);
    }
  });

  test("whole texts in between chunks of a stream: each redacted alone, the stream's held text untouched", () => {
    const r = new Redactor([VALUE]);
    const half = Math.floor(VALUE.length / 2);
    let streamed = r.push(`stream ${VALUE.slice(0, half)}`);
    for (const encoded of [VALUE, Buffer.from(VALUE).toString("base64"), encodeURIComponent(VALUE)]) expect(r.whole(`error: ${encoded}!`)).toBe(`error: ${REDACTED}!`);
    expect(r.whole(`no secret, and half of one: ${VALUE.slice(0, half)}`)).toBe(`no secret, and half of one: ${VALUE.slice(0, half)}`);
    streamed += r.push(`${VALUE.slice(half)} end`) + r.end();
    expect(streamed).toBe(`stream ${REDACTED} end`);
  });

  test("one character per chunk", () => {
    expect(redactAll([VALUE], [...`x${VALUE}y${VALUE}`])).toBe(`x${REDACTED}y${REDACTED}`);
  });

  test("base64 of the value, alone or inside a longer text at each alignment, in both alphabets", () => {
    for (const prefix of ["", "a", "ab", "abc"]) {
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = Buffer.from(`${prefix}${VALUE}tail`).toString(encoding);
        const out = redactAll([VALUE], [encoded]);
        expect(out).toContain(REDACTED);
        // What is left around the mark is at most the characters shared with the prefix and tail.
        expect(out.replace(REDACTED, "").length).toBeLessThanOrEqual(encoded.length - (VALUE.length * 4) / 3 + 4);
      }
    }
    expect(redactAll([VALUE], [Buffer.from(VALUE).toString("base64")])).toBe(REDACTED);
  });

  test("base64 wrapped into lines (76 characters as base64(1) does, 64 with CR LF as PEM) split across chunks", () => {
    const long = "k".repeat(40) + VALUE + "z".repeat(60);
    const encoded = Buffer.from(long).toString("base64");
    for (const [width, eol] of [[76, "\n"], [64, "\r\n"], [5, "\n"]] as const) {
      const wrapped = encoded.match(new RegExp(`.{1,${width}}`, "g"))!.join(eol) + eol;
      for (const cut of [1, 50, 77, 130]) {
        const out = redactAll([long], ["start\n", wrapped.slice(0, cut), wrapped.slice(cut), "end\n"]);
        expect(out).toBe(`start\n${REDACTED}${eol}end\n`);
      }
    }
  });

  test("URL-encoded forms: encodeURIComponent, every reserved character encoded, lower-case hex, + for spaces", () => {
    const value = "a b/c+d!e(f)";
    for (const form of [
      encodeURIComponent(value),
      "a%20b%2Fc%2Bd%21e%28f%29",
      "a+b%2Fc%2Bd%21e%28f%29",
      "a%20b%2fc%2bd%21e%28f%29",
    ]) {
      expect(redactAll([value], [`?q=${form}&x=1`])).toBe(`?q=${REDACTED}&x=1`);
    }
  });

  test("large values (64 KiB, the store's limit) in numbers are matched, however long the forms get", () => {
    const values = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(64 * 1024));
    const text = `a ${values[3]} b ${Buffer.from(values[5]!).toString("base64")} c`;
    expect(redactAll(values, [text.slice(0, 70_000), text.slice(70_000)])).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  test("several values; the longest form wins; text without values passes unchanged", () => {
    expect(redactAll(["abcd", "abcdefgh"], ["xx abcdefgh abcd yy"])).toBe(`xx ${REDACTED} ${REDACTED} yy`);
    expect(redactAll([], ["unchanged"])).toBe("unchanged");
    expect(redactAll(["zzzz"], ["plain ", "text"])).toBe("plain text");
    expect(redactAll([""], ["empty values redact nothing"])).toBe("empty values redact nothing");
  });
});
