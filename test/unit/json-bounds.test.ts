// The nesting and size checks on JSON: the byte scan of request bodies must read strings exactly as
// JSON.parse does (brackets inside them do not count, escaped quotes do not end them), and the check
// on parsed values must measure depth and UTF-8 size without recursion.
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../scripts/lib/content";
import { boundedJsonObject, jsonBoundsProblem, textNestsDeeperThan } from "../../src/contracts/json-bounds";

const bytes = (text: string) => new TextEncoder().encode(text);
const deeper = (text: string, max: number) => textNestsDeeperThan(bytes(text), max);

/** Depth of a parsed value as the checks define it (a bare `{}` is 1 deep), by an explicit stack. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    max = Math.max(max, depth);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

describe("textNestsDeeperThan", () => {
  test("counts arrays and objects alike, and refuses one level past the limit", () => {
    expect(deeper("[[[]]]", 3)).toBe(false);
    expect(deeper("[[[[]]]]", 3)).toBe(true);
    expect(deeper('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
    expect(deeper('{"a":{"b":[{"c":[1]}]}}', 4)).toBe(true);
    // Siblings do not add up: depth is how far brackets stack, not how many there are.
    expect(deeper(`[${"[[]],".repeat(1000)}[]]`, 3)).toBe(false);
  });

  test("brackets inside strings do not count, however the string is escaped", () => {
    expect(deeper(JSON.stringify({ s: "[".repeat(1000) }), 2)).toBe(false);
    // An escaped quote does not end the string, an escaped backslash before a quote does.
    expect(deeper(JSON.stringify(['x"[[[[[[', '\\', "[[[[["]), 1)).toBe(false);
    expect(deeper(`["\\\\"${",[".repeat(5)}${"]".repeat(5)}]`, 5)).toBe(true);
    // Past the first 32 bytes a string is searched natively: the same rules hold there.
    const long = `${"y".repeat(40)}\\"[[[[[[\\\\\\"[[[[[[\\\\`;
    expect(deeper(`["${long}"]`, 1)).toBe(false);
    expect(deeper(`["${long}",[[[]]]]`, 3)).toBe(true);
  });

  test("multi-byte UTF-8 and malformed text", () => {
    expect(deeper(JSON.stringify({ "ключ": ["日本", "🎉[", { e: "é" }] }), 3)).toBe(false);
    expect(deeper(`${"[".repeat(600)}"日本`, 512)).toBe(true);
    // An unterminated string hides the rest; JSON.parse refuses such text anyway.
    expect(deeper(`["${"[".repeat(600)}`, 512)).toBe(false);
    expect(deeper("]]]]", 1)).toBe(false);
  });

  test("agrees with JSON.parse on random JSON full of brackets, quotes and backslashes in strings", () => {
    const rnd = mulberry32(0x6a50_17);
    const int = (n: number) => Math.floor(rnd() * n);
    const chars = ['"', "\\", "[", "]", "{", "}", "a", "é", "日", "🎉", "\n", "\u0000"];
    const randString = () => Array.from({ length: int(rnd() < 0.2 ? 80 : 8) }, () => chars[int(chars.length)]).join("");
    const randValue = (depth: number): unknown => {
      if (depth > 12 || rnd() < 0.25) return [randString(), int(100), null, true][int(4)];
      return rnd() < 0.5
        ? Array.from({ length: int(4) }, () => randValue(depth + 1))
        : Object.fromEntries(Array.from({ length: int(4) }, () => [randString(), randValue(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const value = randValue(0);
      const text = JSON.stringify(value);
      const depth = depthOf(JSON.parse(text));
      for (const max of [0, 1, depth - 1, depth, depth + 1]) {
        if (max < 0) continue;
        expect({ text, max, deeper: deeper(text, max) }).toEqual({ text, max, deeper: depth > max });
      }
    }
  });
});

describe("jsonBoundsProblem", () => {
  const bounds = { maxDepth: 3, maxBytes: 20 };

  test("depth: the value itself is the first level", () => {
    expect(jsonBoundsProblem({ a: [{}] }, bounds)).toBeNull();
    expect(jsonBoundsProblem({ a: [{ b: [] }] }, bounds)).toBe("is nested deeper than 3 levels");
    expect(jsonBoundsProblem("scalar", bounds)).toBeNull();
  });

  test("size: UTF-8 bytes of the compact serialization, exactly at the limit and one over", () => {
    expect(JSON.stringify({ a: "x".repeat(12) }).length).toBe(20);
    expect(jsonBoundsProblem({ a: "x".repeat(12) }, bounds)).toBeNull();
    expect(jsonBoundsProblem({ a: "x".repeat(13) }, bounds)).toBe("is larger than 20 bytes as JSON");
    // Six characters, twelve bytes.
    expect(jsonBoundsProblem({ a: "é".repeat(12) }, bounds)).toBe("is larger than 20 bytes as JSON");
  });

  test("a value far too deep, wide or long is judged without recursion", () => {
    const limits = { maxDepth: 32, maxBytes: 65536 };
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(jsonBoundsProblem(deep, limits)).toBe("is nested deeper than 32 levels");
    expect(jsonBoundsProblem(new Array(1_000_000).fill([]), limits)).toBe("is larger than 65536 bytes as JSON");
    expect(jsonBoundsProblem({ s: ["x".repeat(1_000_000)] }, limits)).toBe("is larger than 65536 bytes as JSON");
  });
});

describe("boundedJsonObject", () => {
  const schema = boundedJsonObject({ maxDepth: 3, maxBytes: 1000 });

  test("passes the parsed object through untouched, own __proto__ keys included", () => {
    const text = '{"__proto__":{"polluted":1},"a":{"__proto__":[1]},"constructor":{"prototype":2}}';
    const value = JSON.parse(text);
    const parsed = schema.parse(value);
    expect(parsed).toBe(value);
    expect(JSON.stringify(parsed)).toBe(text);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  test("refuses what is not a JSON object", () => {
    for (const value of [null, [], "s", 1, true]) {
      expect(schema.safeParse(value).error?.issues.map((i) => i.message)).toEqual(["must be a JSON object"]);
    }
  });
});
