// Editing one table of a harness config (Codex's config.toml) in place. toml-eslint-parser (TOML 1.0
// and the 1.1 relaxations) gives every table header and key/value line with its source range;
// `setTomlTable` rewrites only the text that defines one table (e.g. `[mcp_servers.signet]` and its
// sub-tables) and checks the result reads back as intended: comments, blank lines and every other
// table stay byte for byte as they were.

import { ParseError, parseTOML, type AST } from "toml-eslint-parser";

export class TomlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TomlError";
  }
}

/** A value kept as written: floats (so `1.0` stays a float) and date/time values. */
export class TomlLiteral {
  constructor(
    readonly kind: "float" | "datetime",
    readonly raw: string,
  ) {}
}

export type TomlValue = string | number | bigint | boolean | TomlLiteral | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

interface TomlEntry {
  /** The key as written on the line (dotted keys are several parts). */
  keyPath: string[];
  /** The section's header path followed by keyPath. */
  fullPath: string[];
  value: TomlValue;
  /** Start of the line and end of it, including its newline. */
  start: number;
  end: number;
}

interface TomlSection {
  /** null for the root (the keys before the first header). */
  header: string[] | null;
  arrayOfTables: boolean;
  /** Start of the header line; end of the header line (with newline); end of the last key/value line. */
  start: number;
  headerEnd: number;
  contentEnd: number;
  entries: TomlEntry[];
}

interface TomlDocument {
  sections: TomlSection[];
  /** "\r\n" when the file uses CRLF line endings, else "\n". */
  eol: string;
}

export function isTable(v: unknown): v is TomlTable {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function keyName(k: AST.TOMLBare | AST.TOMLQuoted): string {
  return k.type === "TOMLBare" ? k.name : k.value;
}

function integer(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

function toValue(node: AST.TOMLContentNode, text: string): TomlValue {
  if (node.type === "TOMLArray") return node.elements.map((e) => toValue(e, text));
  if (node.type === "TOMLInlineTable") {
    const table: TomlTable = {};
    for (const kv of node.body) {
      const path = kv.key.keys.map(keyName);
      let t = table;
      for (const part of path.slice(0, -1)) t = (t[part] ??= {}) as TomlTable;
      t[path[path.length - 1]!] = toValue(kv.value, text);
    }
    return table;
  }
  if (node.kind === "integer") return integer(node.bigint);
  if (node.kind === "string" || node.kind === "boolean") return node.value;
  return new TomlLiteral(node.kind === "float" ? "float" : "datetime", text.slice(node.range[0], node.range[1]));
}

function parseTomlDocument(text: string): TomlDocument {
  let ast: AST.TOMLProgram;
  try {
    ast = parseTOML(text, { tomlVersion: "1.1" });
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    throw new TomlError(`${err.message} at line ${err.lineNumber}, column ${err.column + 1}`);
  }
  // Spans are whole lines: from the start of the line a node starts on to past the newline it ends on.
  const lineStart = (at: number) => text.lastIndexOf("\n", at - 1) + 1;
  const lineEnd = (at: number) => (text.indexOf("\n", at) + 1 || text.length);
  const entries = (body: AST.TOMLKeyValue[], header: string[]): TomlEntry[] =>
    body.map((kv) => {
      const keyPath = kv.key.keys.map(keyName);
      return { keyPath, fullPath: [...header, ...keyPath], value: toValue(kv.value, text), start: lineStart(kv.range[0]), end: lineEnd(kv.range[1]) };
    });
  const top = ast.body[0].body;
  const rootEntries = entries(top.filter((n): n is AST.TOMLKeyValue => n.type === "TOMLKeyValue"), []);
  const sections: TomlSection[] = [{ header: null, arrayOfTables: false, start: 0, headerEnd: 0, contentEnd: rootEntries.at(-1)?.end ?? 0, entries: rootEntries }];
  for (const node of top) {
    if (node.type !== "TOMLTable") continue;
    const header = node.key.keys.map(keyName);
    const own = entries(node.body, header);
    const headerEnd = lineEnd(node.key.range[1]);
    sections.push({ header, arrayOfTables: node.kind === "array", start: lineStart(node.range[0]), headerEnd, contentEnd: own.at(-1)?.end ?? headerEnd, entries: own });
  }
  return { sections, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** The document's data. Lenient about redefinitions: validity is checked by Bun.TOML where it can. */
function tomlData(doc: TomlDocument): TomlTable {
  const root: TomlTable = {};
  const descend = (t: TomlTable, path: string[]): TomlTable => {
    for (const part of path) {
      let next = Object.hasOwn(t, part) ? t[part] : undefined;
      if (Array.isArray(next)) next = next[next.length - 1];
      if (next === undefined) next = t[part] = {};
      if (!isTable(next)) throw new TomlError(`key ${path.join(".")} is not a table`);
      t = next;
    }
    return t;
  };
  for (const section of doc.sections) {
    let table = root;
    if (section.header && section.arrayOfTables) {
      const parent = descend(root, section.header.slice(0, -1));
      const last = section.header[section.header.length - 1]!;
      const list = Object.hasOwn(parent, last) ? parent[last] : (parent[last] = []);
      if (!Array.isArray(list)) throw new TomlError(`key ${section.header.join(".")} is not an array of tables`);
      table = {};
      list.push(table);
    } else if (section.header) {
      table = descend(root, section.header);
    }
    for (const entry of section.entries) {
      const parent = descend(table, entry.keyPath.slice(0, -1));
      parent[entry.keyPath[entry.keyPath.length - 1]!] = entry.value;
    }
  }
  return root;
}

const BOM = "\uFEFF";

/** The document's data; a byte order mark before it is not part of it. */
export function parseToml(text: string): TomlTable {
  return tomlData(parseTomlDocument(text.startsWith(BOM) ? text.slice(1) : text));
}

// ---- writing ----

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function tomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A value written on one line: strings, numbers, booleans, arrays and inline tables. */
export function tomlInline(v: TomlValue): string {
  if (typeof v === "string") return tomlString(v);
  if (typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    if (Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
    return String(v);
  }
  if (v instanceof TomlLiteral) return v.raw;
  if (Array.isArray(v)) return `[${v.map(tomlInline).join(", ")}]`;
  if (isTable(v)) {
    const parts = Object.entries(v).map(([k, x]) => `${tomlKey(k)} = ${tomlInline(x)}`);
    return parts.length ? `{ ${parts.join(", ")} }` : "{}";
  }
  throw new TomlError(`cannot write ${typeof v} as TOML`);
}

/** `[path]` with its plain keys, then each sub-table as its own `[path.key]` block. */
export function tomlTableBlock(path: string[], table: TomlTable, eol = "\n"): string {
  const lines = [`[${path.map(tomlKey).join(".")}]`];
  const subTables: [string, TomlTable][] = [];
  for (const [k, v] of Object.entries(table)) {
    if (isTable(v)) subTables.push([k, v]);
    else lines.push(`${tomlKey(k)} = ${tomlInline(v)}`);
  }
  let out = lines.join(eol) + eol;
  for (const [k, v] of subTables) out += eol + tomlTableBlock([...path, k], v, eol);
  return out;
}

// ---- editing ----

function startsWithPath(path: string[], prefix: string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

export function getPath(data: TomlTable, path: string[]): TomlValue | undefined {
  let v: TomlValue | undefined = data;
  for (const part of path) {
    if (!isTable(v) || !Object.hasOwn(v, part)) return undefined;
    v = v[part];
  }
  return v;
}

/**
 * A copy of `data` without the value at `path`, and without the tables on the way to it that are
 * left empty (for comparing what an edit left alone).
 */
export function withoutPath(data: TomlTable, path: string[]): TomlTable {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(data, head)) return data;
  const copy: TomlTable = { ...data };
  const child = copy[head];
  if (rest.length === 0) delete copy[head];
  else if (isTable(child)) {
    const pruned = withoutPath(child, rest);
    if (Object.keys(pruned).length === 0) delete copy[head];
    else copy[head] = pruned;
  }
  return copy;
}

export function tomlEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof TomlLiteral || b instanceof TomlLiteral) {
    return a instanceof TomlLiteral && b instanceof TomlLiteral && a.kind === b.kind && a.raw === b.raw;
  }
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => tomlEqual(x, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && tomlEqual((a as never)[k], (b as never)[k]));
  }
  return false;
}

interface Span {
  start: number;
  end: number;
}

/** Removes [start, end) and tidies the blank lines the removal leaves behind (never other text). */
function removeSpan(text: string, span: Span): string {
  let before = text.slice(0, span.start);
  let after = text.slice(span.end);
  if (/^\s*$/.test(after)) {
    // The block was the end of the file: drop the blank line that separated it from what precedes
    // (the one an appended table brings), so what was there before keeps its own blank lines.
    if (before.trim() !== "") before = before.replace(/(\r?\n)[ \t]*\r?\n$/, "$1");
    after = "";
  } else if (before === "" || /\n[ \t]*\r?\n$/.test(before)) {
    after = after.replace(/^[ \t]*\r?\n/, "");
  }
  return before + after;
}

/**
 * Sets the table at `path` to `value` (or removes it when `value` is undefined), editing only the
 * text that defines it: its `[path]` / `[path.*]` sections and any key/value lines whose full key
 * lies under `path`. The new text replaces the first such section, or is appended at the end.
 * Returns the text unchanged when the table already holds exactly `value` as header sections. A
 * byte order mark and the lack of a final newline are kept, so that removing the table from the
 * end gives back the file it was appended to.
 */
export function setTomlTable(text: string, path: string[], value: TomlTable | undefined): string {
  if (text.startsWith(BOM)) return BOM + setTomlTable(text.slice(1), path, value);
  const doc = parseTomlDocument(text);
  const data = tomlData(doc);
  for (const section of doc.sections) {
    if (section.header && section.arrayOfTables && startsWithPath(path, section.header) && section.header.length < path.length) {
      throw new TomlError(`${section.header.join(".")} is an array of tables, so ${path.join(".")} cannot be a table in it`);
    }
    for (const entry of section.entries) {
      if (startsWithPath(path, entry.fullPath) && entry.fullPath.length < path.length) {
        throw new TomlError(
          `${entry.fullPath.join(".")} is written as an inline value; rewrite it as [${path.slice(0, entry.fullPath.length + 1).join(".")}] tables to let signet edit it`,
        );
      }
    }
  }
  const headerSpans: Span[] = [];
  const lineSpans: Span[] = [];
  for (const section of doc.sections) {
    if (section.header && startsWithPath(section.header, path)) {
      headerSpans.push({ start: section.start, end: section.contentEnd });
      continue;
    }
    for (const entry of section.entries) {
      if (startsWithPath(entry.fullPath, path)) lineSpans.push({ start: entry.start, end: entry.end });
    }
  }
  const current = getPath(data, path);
  if (value !== undefined && lineSpans.length === 0 && headerSpans.length > 0 && tomlEqual(current, value)) return text;
  if (value === undefined && headerSpans.length === 0 && lineSpans.length === 0) return text;

  const block = value === undefined ? undefined : tomlTableBlock(path, value, doc.eol);
  const spans = [...headerSpans, ...lineSpans].sort((a, b) => a.start - b.start);
  const replaceAt = block !== undefined && headerSpans.length > 0 ? headerSpans[0]!.start : -1;
  let out = text;
  for (const span of [...spans].reverse()) {
    if (span.start === replaceAt) out = out.slice(0, span.start) + block + out.slice(span.end);
    else out = removeSpan(out, span);
  }
  if (block !== undefined && replaceAt === -1) {
    if (out.length > 0 && !out.endsWith("\n")) out += doc.eol;
    // One blank line before it, always: removing the table at the end takes exactly that one away.
    if (out.trim() !== "") out += doc.eol;
    out += block;
  }
  if (text !== "" && !text.endsWith("\n")) out = out.replace(/\r?\n$/, "");
  // The edit must leave every other key as it was and the table exactly as asked.
  const after = parseToml(out);
  if (!tomlEqual(withoutPath(after, path), withoutPath(data, path)) || !tomlEqual(getPath(after, path), value)) {
    throw new TomlError(`editing ${path.join(".")} would have changed other keys`);
  }
  return out;
}
