// FTS5's `porter unicode61 remove_diacritics 2` tokenizer in JS, token for token, so the in-memory
// keyword index ranks exactly as an FTS5 table of the memories would (the tests hold it to one). unicode61 splits on SQLite's own character
// classes and folds case and Latin diacritics (tables in fts5-tables.ts, read off SQLite itself);
// porter then stems the folded token's UTF-8 bytes with SQLite's variant of the Porter algorithm.
import { CONTINUE_ONLY, FOLD_RUNS, SEPARATOR_BOUNDARIES } from "./fts5-tables";

const SEP = 0;
const TOKEN = 1;
const CONTINUES = 2; // combining diacritics: part of a token, but never its start

/** Porter only stems tokens of 3 to 64 UTF-8 bytes (FTS5_PORTER_MAX_TOKEN). */
const STEM_MAX_BYTES = 64;
/** FTS5 keeps at most this many bytes of a token (FTS5_MAX_TOKEN_SIZE), cutting mid-character if need be. */
const MAX_TOKEN_BYTES = 32768;
/** Raw spans longer than this are never stemmed, so caching them only crowds out useful entries. */
const MAX_CACHED_LENGTH = STEM_MAX_BYTES;

const base36 = (s: string): number[] => s.split(",").map((n) => parseInt(n, 36));
const runningSum = (xs: number[]): number[] => {
  let sum = 0;
  return xs.map((x) => (sum += x));
};

const boundaries = runningSum(base36(SEPARATOR_BOUNDARIES));

/** Separator or token character, for any code point: SEPARATOR_BOUNDARIES alternate from a separator range at 0. */
function classOf(cp: number): number {
  let lo = 0;
  let hi = boundaries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (boundaries[mid]! <= cp) lo = mid + 1;
    else hi = mid;
  }
  return lo & 1 ? TOKEN : SEP; // lo = how many boundaries are at or below cp
}

type Run = [first: number, count: number, step: number, target: number, targetStep: number];

// The tables and the token cache are built on the first tokenize(), not when the module loads:
// processes that only import something beside it (signet-mcp's renderers) do not pay ~30 ms of
// start for 65,536-entry tables and a 2 MB cache they never use.
//
// The BMP, where nearly all text lives, gets flat tables; astral code points take the slow path.
// Lone surrogates stay separators, like the U+FFFD they become on their way into SQLite.
let BMP_CLASS = new Uint8Array(0);
/** Folded code unit for each BMP character (0: dropped); astral runs are kept aside. */
let BMP_FOLD = new Uint16Array(0);
const astralFolds: Run[] = [];

// The token cache: an open-addressing hash table from a raw span of text to its token, probed from
// the text itself (the hash is taken while scanning, keys are compared in place), so a repeated word
// costs no substring and no string hashing: twice as fast as a Map. Emptied when half full, which
// bounds it without deletions.
const SLOTS = 1 << 18;
let slotKey: (string | undefined)[] = [];
let slotToken: string[] = [];
let slotHash = new Int32Array(0);
let cached = 0;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function buildTables(): void {
  BMP_CLASS = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) if ((c & 0xf800) !== 0xd800) BMP_CLASS[c] = classOf(c);
  for (const c of runningSum(base36(CONTINUE_ONLY))) BMP_CLASS[c] = CONTINUES;
  BMP_FOLD = new Uint16Array(0x10000).map((_, c) => c);
  const r = base36(FOLD_RUNS);
  for (let i = 0, first = 0; i < r.length; i += 5) {
    first += r[i]!;
    const [count, step, target, targetStep] = r.slice(i + 1, i + 5) as [number, number, number, number];
    if (first > 0xffff) astralFolds.push([first, count, step, target, targetStep]);
    else for (let k = 0; k < count; k++) BMP_FOLD[first + k * step] = target + k * targetStep;
  }
  slotKey = new Array(SLOTS).fill(undefined);
  slotToken = new Array(SLOTS).fill("");
  slotHash = new Int32Array(SLOTS);
}

function foldAstral(cp: number): number {
  for (const [first, count, step, target, targetStep] of astralFolds) {
    const k = (cp - first) / step;
    if (k >= 0 && k < count && Number.isInteger(k)) return target + k * targetStep;
  }
  return cp;
}

/** SEP, TOKEN or CONTINUES. */
const classOfCodePoint = (cp: number): number => (cp > 0xffff ? classOf(cp) : BMP_CLASS[cp]!);

/**
 * The tokens FTS5's `porter unicode61 remove_diacritics 2` tokenizer emits for text, in order,
 * duplicates kept: for documents and queries alike.
 */
export function tokenize(text: string): string[] {
  if (BMP_CLASS.length === 0) buildTables();
  const tokens: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let cp = text.charCodeAt(i);
    if (cp >= 0x80) cp = text.codePointAt(i)!;
    if (classOfCodePoint(cp) !== TOKEN) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const start = i;
    let hash = FNV_OFFSET;
    let ascii = true;
    for (;;) {
      hash = Math.imul(hash ^ cp, FNV_PRIME);
      if (cp >= 0x80) ascii = false;
      i += cp > 0xffff ? 2 : 1;
      if (i >= n) break;
      cp = text.charCodeAt(i);
      if (cp >= 0x80) cp = text.codePointAt(i)!;
      if (classOfCodePoint(cp) === SEP) break;
    }
    tokens.push(cachedToken(text, start, i, hash, ascii));
  }
  return tokens;
}

function cachedToken(text: string, start: number, end: number, hash: number, ascii: boolean): string {
  const length = end - start;
  if (length > MAX_CACHED_LENGTH) return token(text.slice(start, end), ascii);
  let slot = hash & (SLOTS - 1);
  for (let key = slotKey[slot]; key !== undefined; key = slotKey[slot]) {
    if (slotHash[slot] === hash && key.length === length && spanEquals(text, start, key)) return slotToken[slot]!;
    slot = (slot + 1) & (SLOTS - 1);
  }
  if (cached === SLOTS >> 1) {
    slotKey.fill(undefined);
    slotToken.fill("");
    cached = 0;
    slot = hash & (SLOTS - 1);
  }
  const raw = text.slice(start, end);
  slotKey[slot] = raw;
  slotHash[slot] = hash;
  cached++;
  return (slotToken[slot] = token(raw, ascii));
}

function spanEquals(text: string, start: number, key: string): boolean {
  for (let k = 0; k < key.length; k++) if (key.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/** The token for a raw span of token characters. */
function token(raw: string, ascii: boolean): string {
  return truncate(stem(ascii ? raw.toLowerCase() : fold(raw)));
}

/** unicode61's folding of a span of token characters that is not all ASCII. */
function fold(raw: string): string {
  let units: number[] | null = null; // only once something changes
  for (let i = 0; i < raw.length; i++) {
    const cp = raw.codePointAt(i)!;
    const f = cp > 0xffff ? foldAstral(cp) : BMP_FOLD[cp]!;
    if (f !== cp && units === null) {
      units = [];
      for (let k = 0; k < i; k++) units.push(raw.charCodeAt(k));
    }
    if (units !== null && f !== 0) {
      if (f > 0xffff) units.push(0xd800 + ((f - 0x10000) >> 10), 0xdc00 + ((f - 0x10000) & 0x3ff));
      else units.push(f);
    }
    if (cp > 0xffff) i++;
  }
  if (units === null) return raw;
  let out = "";
  for (let k = 0; k < units.length; k += 4096) out += String.fromCharCode(...units.slice(k, k + 4096));
  return out;
}

const encoder = new TextEncoder();
// Lossy on purpose: bytes cut mid-character (by the length cap or by porter) read back from SQLite
// as U+FFFD too.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

function truncate(token: string): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so shorter tokens cannot exceed the cap.
  if (token.length * 3 <= MAX_TOKEN_BYTES) return token;
  const bytes = encoder.encode(token);
  return bytes.length <= MAX_TOKEN_BYTES ? token : decoder.decode(bytes.subarray(0, MAX_TOKEN_BYTES));
}

// ---- porter: SQLite's fts5PorterCb, on the folded token's UTF-8 bytes (non-ASCII bytes are consonants).

const buf = new Uint8Array(4 * STEM_MAX_BYTES); // room for any token of <= 64 UTF-16 units
let len = 0;

const A = 97, E = 101, I = 105, L = 108, O = 111, S = 115, T = 116, U = 117, W = 119, X = 120, Y = 121, Z = 122;

function isVowel(c: number, yIsVowel: boolean): boolean {
  return c === A || c === E || c === I || c === O || c === U || (yIsVowel && c === Y);
}

/** Index just past the first vowel-then-consonant in buf[from, to), or 0; a y after a consonant is a vowel. */
function gobbleVC(from: number, to: number, prevIsConsonant: boolean): number {
  let consonant = prevIsConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** Porter's measure m of the stem buf[0, n), compared: m > 0, m > 1, m = 1. */
const mGt0 = (n: number) => gobbleVC(0, n, false) !== 0;
function mGt1(n: number): boolean {
  const k = gobbleVC(0, n, false);
  return k !== 0 && gobbleVC(k, n, true) !== 0;
}
function mEq1(n: number): boolean {
  const k = gobbleVC(0, n, false);
  return k !== 0 && gobbleVC(k, n, true) === 0;
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCVC(n: number): boolean {
  const last = buf[n - 1]!;
  if (last === W || last === X || last === Y) return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}

/** *v*: the stem has a vowel; SQLite's quirk counts any y but the first letter as one. */
function hasVowel(n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(buf[i]!, i > 0)) return true;
  return false;
}

const mGt1AndSorT = (n: number) => (buf[n - 1] === S || buf[n - 1] === T) && mGt1(n);

/** The suffix ends the word and leaves a non-empty stem. */
function endsWith(suffix: string): boolean {
  const k = suffix.length;
  if (len <= k) return false;
  for (let j = 0; j < k; j++) if (buf[len - k + j] !== suffix.charCodeAt(j)) return false;
  return true;
}

function replaceEnd(suffixLength: number, replacement: string): void {
  len -= suffixLength;
  for (let j = 0; j < replacement.length; j++) buf[len++] = replacement.charCodeAt(j);
}

type Rule = readonly [suffix: string, replacement: string, condition: (stemLength: number) => boolean];

/** A step's rules by their last letter, in SQLite's order (a longer suffix before one it ends with: ement, ment, ent). */
function step(rules: readonly Rule[]): readonly Rule[][] {
  const byLast: Rule[][] = Array.from({ length: Z + 1 }, () => []);
  for (const rule of rules) byLast[rule[0].charCodeAt(rule[0].length - 1)]!.push(rule);
  return byLast;
}

/** Only the first rule whose suffix matches is considered, and it fires if its condition holds. */
function applyFirst(byLast: readonly Rule[][]): void {
  const rules = byLast[buf[len - 1]!];
  if (rules === undefined) return;
  for (const [suffix, replacement, condition] of rules) {
    if (!endsWith(suffix)) continue;
    if (condition(len - suffix.length)) replaceEnd(suffix.length, replacement);
    return;
  }
}

const STEP2 = step(
  (
    [
      ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["logi", "log"],
      ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"],
      ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"],
      ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
    ] as const
  ).map(([s, r]) => [s, r, mGt0] as const),
);

const STEP3 = step(
  (
    [["ical", "ic"], ["ness", ""], ["icate", "ic"], ["iciti", "ic"], ["ful", ""], ["ative", ""], ["alize", "al"]] as const
  ).map(([s, r]) => [s, r, mGt0] as const),
);

const STEP4 = step(
  [
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
    "ous", "ive", "ize",
  ].map((s) => [s, "", s === "ion" ? mGt1AndSorT : mGt1] as const),
);

/** The Porter stem FTS5's porter tokenizer gives an already folded token (exported for tests). */
export function stem(word: string): string {
  const n = word.length;
  const last = word.charCodeAt(n - 1);
  // Every rule needs the word to end in a-z, and more than 64 units is more than 64 bytes.
  if (n > STEM_MAX_BYTES || last < A || last > Z) return word;
  let ascii = true;
  for (let k = 0; k < n && ascii; k++) ascii = (buf[k] = word.charCodeAt(k)) < 0x80;
  const bytes = ascii ? n : encoder.encodeInto(word, buf).written;
  if (bytes < 3 || bytes > STEM_MAX_BYTES) return word;
  len = bytes;

  // Step 1a
  if (buf[len - 1] === S) {
    if (buf[len - 2] === E) {
      len -= (len > 4 && buf[len - 4] === S && buf[len - 3] === S) || (len > 3 && buf[len - 3] === I) ? 2 : 1;
    } else if (buf[len - 2] !== S) len--;
  }

  // Step 1b; an "eed" that fails its condition keeps "ed" from being tried.
  let removed = false;
  if (endsWith("eed")) {
    if (mGt0(len - 3)) len--;
  } else {
    const k = endsWith("ed") ? 2 : endsWith("ing") ? 3 : 0;
    if (k !== 0 && hasVowel(len - k)) {
      len -= k;
      removed = true;
    }
  }
  if (removed) {
    const c = buf[len - 1]!;
    if (endsWith("at") || endsWith("bl") || endsWith("iz")) buf[len++] = E;
    else if (!isVowel(c, false) && c !== L && c !== S && c !== Z && c === buf[len - 2]) len--;
    else if (mEq1(len) && endsCVC(len)) buf[len++] = E;
  }

  // Step 1c
  if (buf[len - 1] === Y && hasVowel(len - 1)) buf[len - 1] = I;

  applyFirst(STEP2);
  applyFirst(STEP3);
  applyFirst(STEP4);

  // Step 5a, 5b
  if (buf[len - 1] === E && (mGt1(len - 1) || (mEq1(len - 1) && !endsCVC(len - 1)))) len--;
  if (len > 1 && buf[len - 1] === L && buf[len - 2] === L && mGt1(len - 1)) len--;

  return ascii && unchanged(word) ? word : decoder.decode(buf.subarray(0, len));
}

/** buf[0, len) still holds the (ASCII) word. */
function unchanged(word: string): boolean {
  if (len !== word.length) return false;
  for (let k = 0; k < len; k++) if (buf[k] !== word.charCodeAt(k)) return false;
  return true;
}
