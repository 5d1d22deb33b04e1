// Bounds on free-form JSON. Deep nesting is cheap to send and dear to handle: recursive code
// (JSON.stringify, validators) overflows the stack, and pretty-printing indents every level, so 32 KB
// nested 8,000 deep prints as 128 MB. Every check here is a loop, never recursion.
import { z } from "zod";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects more than `max` deep, read from its UTF-8 bytes (UTF-8
 * never puts an ASCII byte inside a multi-byte character). Malformed text is left for JSON.parse.
 */
export function textNestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  if (fewOpeners(bytes, max)) return false;
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    // OR 0x20 folds [ and ] onto { and }: one comparison each for openers and closers.
    const folded = bytes[i]! | 0x20;
    if (folded === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (folded === CLOSE_BRACE) {
      depth--;
    } else if (bytes[i] === QUOTE) {
      i = closingQuote(bytes, i);
      if (i === -1) return false;
    }
  }
  return false;
}

/**
 * Whether `[` and `{` occur at most `max` times in all: then, strings or not, the text cannot nest
 * deeper than `max`. Native searches make this nearly free for the usual text-heavy body.
 */
function fewOpeners(bytes: Uint8Array, max: number): boolean {
  let count = 0;
  for (const opener of [OPEN_BRACKET, OPEN_BRACE]) {
    for (let i = bytes.indexOf(opener); i !== -1; i = bytes.indexOf(opener, i + 1)) if (++count > max) return false;
  }
  return true;
}

/** Where the string opened at `open` ends, or -1 when it never does. */
function closingQuote(bytes: Uint8Array, open: number): number {
  // Short strings (keys, small values) go fastest byte by byte, long ones by native search.
  const stop = Math.min(open + 32, bytes.length);
  let i = open + 1;
  for (; i < stop; i++) {
    if (bytes[i] === QUOTE) return i;
    if (bytes[i] === BACKSLASH) i++;
  }
  // A quote closes the string unless an odd run of backslashes precedes it.
  let end = bytes.indexOf(QUOTE, i);
  while (end !== -1 && isEscaped(bytes, end)) end = bytes.indexOf(QUOTE, end + 1);
  return end;
}

function isEscaped(bytes: Uint8Array, quote: number): boolean {
  let backslashes = 0;
  for (let j = quote - 1; bytes[j] === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}

export interface JsonBounds {
  /** Levels of arrays and objects, the value itself included (a bare `{}` is 1 deep). */
  maxDepth: number;
  /** UTF-8 bytes of the compact JSON serialization. */
  maxBytes: number;
}

/** What is wrong with a parsed JSON value against `bounds`, or null when it fits. */
export function jsonBoundsProblem(value: unknown, { maxDepth, maxBytes }: JsonBounds): string | null {
  const tooLarge = `is larger than ${maxBytes} bytes as JSON`;
  // A container serializes to at least its two brackets and a byte per element, a string to at
  // least a byte per UTF-16 unit: counting that ends the walk early, however large the value.
  let atLeast = 0;
  const nodes: unknown[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > maxDepth) return `is nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(node) ? node : Object.values(node);
    atLeast += 2 + children.length;
    if (atLeast > maxBytes) return tooLarge;
    for (const child of children) {
      if (typeof child === "string") {
        atLeast += child.length;
        if (atLeast > maxBytes) return tooLarge;
      } else if (typeof child === "object" && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  // Safe only now that the walk has found the depth within maxDepth: JSON.stringify recurses.
  return Buffer.byteLength(JSON.stringify(value)) > maxBytes ? tooLarge : null;
}

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A JSON object within `bounds`. The value passes through untouched: zod's record and object
 * schemas rebuild objects by assignment, which silently drops an own `__proto__` key (or, in a
 * careless rebuild, sets the prototype), while this keeps every key exactly as JSON.parse made it.
 */
export function boundedJsonObject(bounds: JsonBounds) {
  return z.custom<Record<string, unknown>>(isJsonObject, "must be a JSON object").superRefine((value, ctx) => {
    const problem = jsonBoundsProblem(value, bounds);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
}
