// A small TOML reader and writer, enough to edit one table of a harness config in place.
//
// The reader parses a whole TOML 1.0 document (plus the TOML 1.1 relaxations: \e and \xHH
// escapes, newlines and trailing commas in inline tables) and records where every table header
// and key/value line sits in the text. `setTomlTable` uses those spans to rewrite only the text
// that defines one table (e.g. `[mcp_servers.signet]` and its sub-tables): comments, blank lines
// and every other table stay byte-for-byte as they were.

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

const BARE_KEY = /[A-Za-z0-9_-]/;

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(message: string, at = this.pos): never {
    const before = this.text.slice(0, at);
    const line = before.split("\n").length;
    const col = at - (before.lastIndexOf("\n") + 1) + 1;
    throw new TomlError(`${message} at line ${line}, column ${col}`);
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? "";
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  ws(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  comment(): void {
    if (this.peek() !== "#") return;
    while (this.pos < this.text.length && this.peek() !== "\n" && !this.startsWith("\r\n")) {
      const c = this.text.charCodeAt(this.pos);
      if ((c < 0x20 && c !== 0x09) || c === 0x7f) this.fail("control character in a comment");
      this.pos++;
    }
  }

  /** Consumes one newline; false when there is none here. */
  newline(): boolean {
    if (this.peek() === "\n") {
      this.pos++;
      return true;
    }
    if (this.startsWith("\r\n")) {
      this.pos += 2;
      return true;
    }
    return false;
  }

  atLineEnd(): boolean {
    return this.pos >= this.text.length || this.peek() === "\n" || this.startsWith("\r\n");
  }

  /** Whitespace, comments and newlines, as allowed inside arrays (and, leniently, inline tables). */
  blank(): void {
    for (;;) {
      this.ws();
      this.comment();
      if (!this.newline()) return;
    }
  }

  endOfLine(): void {
    this.ws();
    this.comment();
    if (this.pos >= this.text.length) return;
    if (!this.newline()) this.fail(`unexpected ${JSON.stringify(this.peek())}; expected the end of the line`);
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.ws();
      parts.push(this.simpleKey());
      this.ws();
      if (this.peek() !== ".") return parts;
      this.pos++;
    }
  }

  simpleKey(): string {
    const c = this.peek();
    if (c === '"') {
      if (this.startsWith('"""')) this.fail("a multi-line string cannot be a key");
      return this.basicString();
    }
    if (c === "'") {
      if (this.startsWith("'''")) this.fail("a multi-line string cannot be a key");
      return this.literalString();
    }
    const start = this.pos;
    while (BARE_KEY.test(this.peek())) this.pos++;
    if (start === this.pos) this.fail(c ? `unexpected ${JSON.stringify(c)}; expected a key` : "expected a key");
    return this.text.slice(start, this.pos);
  }

  escape(): string {
    const c = this.peek();
    this.pos++;
    const simple: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", e: "\x1b", '"': '"', "\\": "\\" };
    if (c in simple) return simple[c]!;
    const digits = c === "u" ? 4 : c === "U" ? 8 : c === "x" ? 2 : 0;
    if (!digits) this.fail(`invalid escape \\${c}`, this.pos - 2);
    const hex = this.text.slice(this.pos, this.pos + digits);
    if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) this.fail(`invalid escape \\${c}${hex}`, this.pos - 2);
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`\\${c}${hex} is not a Unicode scalar value`, this.pos - 2);
    this.pos += digits;
    return String.fromCodePoint(code);
  }

  checkChar(allowNewline: boolean): void {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x09) return;
    if (allowNewline && (c === 0x0a || (c === 0x0d && this.peek(1) === "\n"))) return;
    if (c < 0x20 || c === 0x7f) this.fail("control character in a string");
  }

  basicString(): string {
    this.pos++; // "
    let out = "";
    for (;;) {
      if (this.atLineEnd()) this.fail("unterminated string");
      const c = this.peek();
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === "\\") {
        this.pos++;
        out += this.escape();
        continue;
      }
      this.checkChar(false);
      out += c;
      this.pos++;
    }
  }

  literalString(): string {
    this.pos++; // '
    const start = this.pos;
    for (;;) {
      if (this.atLineEnd()) this.fail("unterminated string");
      if (this.peek() === "'") {
        const s = this.text.slice(start, this.pos);
        this.pos++;
        return s;
      }
      this.checkChar(false);
      this.pos++;
    }
  }

  multiline(quote: '"' | "'"): string {
    const delim = quote.repeat(3);
    this.pos += 3;
    this.newline(); // a newline right after the opening delimiter is trimmed
    let out = "";
    for (;;) {
      if (this.pos >= this.text.length) this.fail("unterminated multi-line string");
      if (this.startsWith(delim)) {
        let n = 3;
        while (this.peek(n) === quote && n < 5) n++;
        out += quote.repeat(n - 3);
        this.pos += n;
        return out;
      }
      const c = this.peek();
      if (quote === '"' && c === "\\") {
        // A backslash at the end of a line trims it and all whitespace and newlines after it.
        const m = /\\[ \t]*\r?\n/y;
        m.lastIndex = this.pos;
        if (m.test(this.text)) {
          this.pos = m.lastIndex;
          while (/[ \t\r\n]/.test(this.peek()) && this.pos < this.text.length) {
            if (this.peek() === "\r" && this.peek(1) !== "\n") break;
            this.pos++;
          }
          continue;
        }
        this.pos++;
        out += this.escape();
        continue;
      }
      this.checkChar(true);
      if (c === "\r") {
        out += "\r\n";
        this.pos += 2;
        continue;
      }
      out += c;
      this.pos++;
    }
  }

  value(): TomlValue {
    const c = this.peek();
    if (c === '"') return this.startsWith('"""') ? this.multiline('"') : this.basicString();
    if (c === "'") return this.startsWith("'''") ? this.multiline("'") : this.literalString();
    if (c === "[") return this.array();
    if (c === "{") return this.inlineTable();
    if (this.word("true")) return true;
    if (this.word("false")) return false;
    return this.scalar();
  }

  word(w: string): boolean {
    if (!this.startsWith(w) || BARE_KEY.test(this.peek(w.length))) return false;
    this.pos += w.length;
    return true;
  }

  sticky(re: RegExp): string | null {
    const r = new RegExp(re.source, "y");
    r.lastIndex = this.pos;
    const m = r.exec(this.text);
    if (!m) return null;
    this.pos = r.lastIndex;
    return m[0];
  }

  scalar(): TomlValue {
    const start = this.pos;
    const result = this.scalarToken();
    if (!this.atLineEnd() && !/[ \t,\]}#]/.test(this.peek())) {
      this.pos = start;
      this.fail("invalid value");
    }
    return result;
  }

  scalarToken(): TomlValue {
    const dt = this.sticky(/\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?/);
    if (dt !== null) return new TomlLiteral("datetime", dt);
    const time = this.sticky(/\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/);
    if (time !== null) return new TomlLiteral("datetime", time);
    const special = this.sticky(/[+-]?(?:inf|nan)/);
    if (special !== null) return new TomlLiteral("float", special);
    const prefixed = this.sticky(/0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*/);
    if (prefixed !== null) return integer(BigInt(prefixed.replace(/_/g, "")));
    const dec = this.sticky(/[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?/);
    if (dec !== null) {
      if (/[.eE]/.test(dec)) return new TomlLiteral("float", dec);
      const digits = dec.replace(/_/g, "");
      const sign = digits.startsWith("-") ? -1n : 1n;
      return integer(sign * BigInt(digits.replace(/^[+-]/, "")));
    }
    this.fail(this.peek() ? `unexpected ${JSON.stringify(this.peek())}; expected a value` : "expected a value");
  }

  array(): TomlValue[] {
    this.pos++; // [
    const out: TomlValue[] = [];
    for (;;) {
      this.blank();
      if (this.peek() === "]") {
        this.pos++;
        return out;
      }
      if (this.pos >= this.text.length) this.fail("unterminated array");
      out.push(this.value());
      this.blank();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === "]") {
        this.pos++;
        return out;
      }
      this.fail("expected , or ] in an array");
    }
  }

  inlineTable(): TomlTable {
    this.pos++; // {
    const out: TomlTable = {};
    for (;;) {
      this.blank();
      if (this.peek() === "}") {
        this.pos++;
        return out;
      }
      if (this.pos >= this.text.length) this.fail("unterminated inline table");
      const keyStart = this.pos;
      const key = this.key();
      if (this.peek() !== "=") this.fail("expected = after a key");
      this.pos++;
      this.ws();
      assign(out, key, this.value(), () => this.fail(`duplicate key ${key.join(".")}`, keyStart));
      this.blank();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      if (this.peek() === "}") {
        this.pos++;
        return out;
      }
      this.fail("expected , or } in an inline table");
    }
  }

  document(): TomlDocument {
    if (this.peek() === "\uFEFF") this.pos++;
    const root: TomlSection = { header: null, arrayOfTables: false, start: 0, headerEnd: 0, contentEnd: 0, entries: [] };
    const sections = [root];
    let current = root;
    while (this.pos < this.text.length) {
      const lineStart = this.pos;
      this.ws();
      if (this.peek() === "#" || this.atLineEnd()) {
        this.endOfLine();
        continue;
      }
      if (this.peek() === "[") {
        const array = this.peek(1) === "[";
        this.pos += array ? 2 : 1;
        const header = this.key();
        if (!this.startsWith(array ? "]]" : "]")) this.fail(`expected ${array ? "]]" : "]"} to close a table header`);
        this.pos += array ? 2 : 1;
        this.endOfLine();
        current = { header, arrayOfTables: array, start: lineStart, headerEnd: this.pos, contentEnd: this.pos, entries: [] };
        sections.push(current);
        continue;
      }
      const keyPath = this.key();
      if (this.peek() !== "=") this.fail("expected = after a key");
      this.pos++;
      this.ws();
      const value = this.value();
      this.endOfLine();
      current.entries.push({ keyPath, fullPath: [...(current.header ?? []), ...keyPath], value, start: lineStart, end: this.pos });
      current.contentEnd = this.pos;
    }
    return { sections, eol: this.text.includes("\r\n") ? "\r\n" : "\n" };
  }
}

function integer(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

function assign(table: TomlTable, path: string[], value: TomlValue, duplicate: () => never): void {
  let t = table;
  for (const part of path.slice(0, -1)) {
    const next = Object.hasOwn(t, part) ? t[part] : undefined;
    if (next === undefined) t = t[part] = {};
    else if (isTable(next)) t = next;
    else duplicate();
  }
  const last = path[path.length - 1]!;
  if (Object.hasOwn(t, last)) duplicate();
  t[last] = value;
}

function parseTomlDocument(text: string): TomlDocument {
  return new Parser(text).document();
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

export function parseToml(text: string): TomlTable {
  return tomlData(parseTomlDocument(text));
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
    // The block was the end of the file: drop the blank lines that separated it from what precedes.
    before = before.replace(/(\r?\n)(?:[ \t]*\r?\n)+$/, "$1");
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
 * Returns the text unchanged when the table already holds exactly `value` as header sections.
 */
export function setTomlTable(text: string, path: string[], value: TomlTable | undefined): string {
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
    if (out.length > 0 && !/\n[ \t]*\r?\n$/.test(out) && out.replace(/^\uFEFF/, "").trim() !== "") out += doc.eol;
    out += block;
  }
  // The edit must leave every other key as it was and the table exactly as asked.
  const after = parseToml(out);
  if (!tomlEqual(withoutPath(after, path), withoutPath(data, path)) || !tomlEqual(getPath(after, path), value)) {
    throw new TomlError(`editing ${path.join(".")} would have changed other keys`);
  }
  return out;
}
