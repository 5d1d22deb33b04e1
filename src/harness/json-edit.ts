// Editing Signet's entries in a JSON config (`mcpServers.signet`, `mcp.signet`, the hooks' event
// lists) and nothing else. Files are read as JSONC (comments, trailing commas) and edited as text:
// a new entry goes after the last one of its object or list, in the file's indentation and line
// ending (on one line where the object is written on one line); an entry of Signet's that changes
// is rewritten where it stands; one taken out goes with the separator that came with it. Every other
// byte stays, so taking out what setup put in gives back the file as it was. An object or list setup
// created goes with the last entry in it; one that was there before stays, empty.
import { createScanner, getNodeValue, parseTree, printParseErrorCode, SyntaxKind, type Node, type ParseError } from "jsonc-parser";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What the harness calls its files, for error messages; both are read as JSONC. */
export type JsonFormat = "JSON" | "JSONC";

/** Whether setup created the object or list at a path of the file (it is taken out once empty). */
export type CreatedContainers = (path: readonly string[]) => boolean;
export const NONE_CREATED: CreatedContainers = () => false;

export class JsonEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonEditError";
  }
}

/** The text is not JSON(C) at all (as opposed to JSON that cannot be edited as asked). */
export class JsonSyntaxError extends JsonEditError {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/** A key written twice on the way to what an edit changes. */
export class DuplicateKeyError extends JsonEditError {
  constructor(message: string) {
    super(message);
    this.name = "DuplicateKeyError";
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const BOM = "\uFEFF";

/** A parsed config: the text after any byte order mark, its tree and how it is laid out. */
export interface JsonConfig {
  bom: string;
  body: string;
  /** undefined when the text holds no value (blank, or only comments). */
  root: Node | undefined;
  /** One level of indentation ("  ", "    ", "\t") and the line ending. */
  unit: string;
  eol: string;
}

function lineOf(body: string, offset: number): number {
  return body.slice(0, offset).split("\n").length;
}

export function parseJsonConfig(text: string, format: JsonFormat = "JSON"): JsonConfig {
  const bom = text.startsWith(BOM) ? BOM : "";
  const body = text.slice(bom.length);
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { allowTrailingComma: true, allowEmptyContent: true });
  const [first] = errors;
  if (first) {
    const column = first.offset - body.lastIndexOf("\n", first.offset - 1);
    const problem = printParseErrorCode(first.error).replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase();
    throw new JsonSyntaxError(`not valid ${format} (${problem} at line ${lineOf(body, first.offset)}, column ${column})`);
  }
  if (root !== undefined && root.type !== "object") throw new JsonEditError("expected a JSON object at the top level");
  return { bom, body, root, ...layoutOf(body, root) };
}

/** The top-level object of a config (blank text reads as empty). */
export function readJsonObject(text: string, format: JsonFormat = "JSON"): JsonObject {
  const { root } = parseJsonConfig(text, format);
  return root === undefined ? {} : (getNodeValue(root) as JsonObject);
}

/** The file's own indentation (that of the first top-level key on a line of its own, else 2 spaces) and line ending. */
function layoutOf(body: string, root: Node | undefined): { unit: string; eol: string } {
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  for (const property of root?.children ?? []) {
    const indent = body.slice(body.lastIndexOf("\n", property.offset - 1) + 1, property.offset);
    if (/^[ \t]+$/.test(indent)) return { unit: indent.includes("\t") ? "\t" : indent, eol };
  }
  return { unit: "  ", eol };
}

const end = (node: Node) => node.offset + node.length;
export const valueOf = (property: Node) => property.children![1]!;

/**
 * The property `key` of an object node. A key written twice is refused: a harness reads the last
 * (as JSON.parse does), so an edit of either could not be sure to change what the harness reads.
 */
export function propertyOf(body: string, object: Node, key: string, where: readonly string[]): Node | undefined {
  const found = (object.children ?? []).filter((p) => p.children?.[0]?.value === key);
  if (found.length > 1) {
    const lines = [...new Set(found.map((p) => lineOf(body, p.offset)))];
    const at = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(" and ")}`;
    const name = JSON.stringify([...where, key].join("."));
    throw new DuplicateKeyError(`${name} is there ${found.length} times (${at}) and the harness reads only the last; merge them into one, then run this again`);
  }
  return found[0];
}

/** The object or list at `path`, or undefined where the path stops; throws where it is something else. */
export function containerAt(config: JsonConfig, path: readonly string[], kind: "object" | "array" = "object"): Node | undefined {
  let node = config.root;
  for (let i = 0; i < path.length && node !== undefined; i++) {
    const property = propertyOf(config.body, node, path[i]!, path.slice(0, i));
    node = property && valueOf(property);
    const want = i === path.length - 1 ? kind : "object";
    if (node !== undefined && node.type !== want) {
      throw new JsonEditError(`"${path.slice(0, i + 1).join(".")}" is not ${want === "object" ? "an object" : "a list"}`);
    }
  }
  return node;
}

/** The values at `path` along every copy of a key written twice (none where nothing is there). */
export function valuesAt(config: JsonConfig, path: readonly string[]): Json[] {
  let nodes = config.root ? [config.root] : [];
  for (const key of path) {
    nodes = nodes.flatMap((n) => (n.type === "object" ? (n.children ?? []).filter((p) => p.children?.[0]?.value === key).map(valueOf) : []));
  }
  return nodes.map((n) => getNodeValue(n) as Json);
}

/** What is at `path`: nothing, an object or list with no entries, or one with some. */
export function containerState(text: string | null, path: readonly string[], format: JsonFormat = "JSON"): "absent" | "empty" | "filled" {
  const config = parseJsonConfig(text ?? "", format);
  let node = config.root;
  for (const key of path) {
    const property = node?.type === "object" ? (node.children ?? []).findLast((p) => p.children?.[0]?.value === key) : undefined;
    node = property && valueOf(property);
  }
  if (node === undefined || (node.type !== "object" && node.type !== "array")) return "absent";
  return (node.children ?? []).length === 0 ? "empty" : "filled";
}

/** The entry `container.name` as the harness reads it (the last of a key written twice); undefined when there is none or the text is not JSON. */
export function jsonEntryOf(text: string | null, container: string, name: string, format: JsonFormat = "JSON"): Json | undefined {
  try {
    const box = readJsonObject(text ?? "", format)[container];
    return isObject(box) && Object.hasOwn(box, name) ? box[name] : undefined;
  } catch {
    return undefined;
  }
}

// ---- text edits ----

interface Mark {
  offset: number;
  end: number;
}

/** The comments between `from` and `to` (a stretch between tokens). */
function commentsIn(body: string, from: number, to: number): Mark[] {
  const scanner = createScanner(body.slice(from, to));
  const out: Mark[] = [];
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.LineCommentTrivia || token === SyntaxKind.BlockCommentTrivia) {
      const offset = from + scanner.getTokenOffset();
      out.push({ offset, end: offset + scanner.getTokenLength() });
    }
  }
  return out;
}

const hasComment = (body: string, from: number, to: number) => commentsIn(body, from, to).length > 0;

/** The offset of the comma that is the next token after `at` (comments skipped), if it is one. */
function commaAfter(body: string, at: number): number | undefined {
  const scanner = createScanner(body, true);
  scanner.setPosition(at);
  return scanner.scan() === SyntaxKind.CommaToken ? scanner.getTokenOffset() : undefined;
}

const lineStart = (body: string, offset: number) => body.lastIndexOf("\n", offset - 1) + 1;
const lineIndent = (body: string, offset: number) => /^[ \t]*/.exec(body.slice(lineStart(body, offset), offset))![0];
const startsLine = (body: string, offset: number) => /^[ \t]*$/.test(body.slice(lineStart(body, offset), offset));
const splice = (body: string, from: number, to: number, insert = "") => body.slice(0, from) + insert + body.slice(to);
const bounds = (container: Node) => ({ open: container.offset, close: end(container) - 1 });

/** `value` on one line, with `": "` and `", "` when `spaced`. */
function inlineJson(value: Json, spaced: boolean): string {
  const comma = spaced ? ", " : ",";
  if (Array.isArray(value)) return `[${value.map((v) => inlineJson(v, spaced)).join(comma)}]`;
  if (isObject(value)) return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${spaced ? " " : ""}${inlineJson(v, spaced)}`).join(comma)}}`;
  return JSON.stringify(value);
}

/** Whether the line at `offset` writes `": "` and `", "` (for an entry joining it). */
function spacedAt(body: string, offset: number): boolean {
  const to = body.indexOf("\n", offset);
  return /[,:][ \t]/.test(body.slice(lineStart(body, offset), to < 0 ? body.length : to));
}

/** An entry's text: over lines indented from `indent`, or on one line (`indent` undefined) spaced like the line it joins. */
function entryText(config: JsonConfig, key: string | undefined, value: Json, indent: string | undefined, at: number): string {
  if (indent === undefined) {
    const spaced = spacedAt(config.body, at);
    return (key === undefined ? "" : `${JSON.stringify(key)}:${spaced ? " " : ""}`) + inlineJson(value, spaced);
  }
  const text = JSON.stringify(value, null, config.unit).replace(/\n/g, config.eol + indent);
  return (key === undefined ? "" : `${JSON.stringify(key)}: `) + text;
}

/** The indentation of an entry of `container` that starts at `offset` (its own line's, else one level in). */
function itemIndent(config: JsonConfig, container: Node, offset: number): string {
  return startsLine(config.body, offset) ? lineIndent(config.body, offset) : lineIndent(config.body, container.offset) + config.unit;
}

/**
 * The body with an entry appended to an object (`key`) or list. After the last entry: a comma and the
 * entry, on a line of its own where that entry has one. Into an empty container: after its last
 * comment, on a line of its own, closing the container on the next line when it was on one line.
 * A one-line container gets the entry on the same line (an empty one only in a file of one line).
 */
function appendItem(config: JsonConfig, container: Node, key: string | undefined, value: Json): string {
  const { body } = config;
  const { open, close } = bounds(container);
  const last = container.children?.at(-1);
  const oneLine = !body.slice(open, close + 1).includes("\n");
  if (oneLine && (last !== undefined || (container !== config.root && !body.trimEnd().includes("\n")))) {
    if (last === undefined) return splice(body, open + 1, open + 1, entryText(config, key, value, undefined, open));
    return splice(body, end(last), end(last), (spacedAt(body, open) ? ", " : ",") + entryText(config, key, value, undefined, open));
  }
  if (last !== undefined) {
    const indent = itemIndent(config, container, last.offset);
    return splice(body, end(last), end(last), `,${config.eol}${indent}${entryText(config, key, value, indent, open)}`);
  }
  const outer = lineIndent(body, open);
  const indent = outer + config.unit;
  const at = commentsIn(body, open + 1, close).at(-1)?.end ?? open + 1;
  const closing = body.slice(at, close).includes("\n") ? "" : config.eol + outer;
  return splice(body, at, at, `${config.eol}${indent}${entryText(config, key, value, indent, open)}${closing}`);
}

/** The body with the value `node` (of a property or list entry) written anew. */
function replaceValue(config: JsonConfig, node: Node, value: Json): string {
  const item = node.parent?.type === "property" ? node.parent : node;
  const container = item.parent!;
  const oneLine = !config.body.slice(container.offset, end(container)).includes("\n");
  const indent = oneLine ? undefined : itemIndent(config, container, item.offset);
  return splice(config.body, node.offset, end(node), entryText(config, undefined, value, indent, node.offset));
}

/**
 * The interior of a container whose only entry was just taken out, as it was before that entry went
 * in: an entry put into an empty one-line container (`{}`, `{ }`) added a line break and the
 * container's indentation before its closing bracket, which go again. (So an empty container the
 * user wrote over two lines, closing at its own line's indentation, comes back as `{}`.)
 */
function collapse(interior: string, outer: string): string {
  const m = /^([^\r\n]*)\r?\n([ \t]*)$/.exec(interior);
  if (!m || (m[2] !== outer && m[2] !== `${outer} `)) return interior;
  // A line comment would take the closing bracket with it.
  const scanner = createScanner(m[1]!);
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) if (token === SyntaxKind.LineCommentTrivia) return interior;
  return m[1]! + m[2]!.slice(outer.length);
}

/**
 * The body without entry `index` of `container`. The separator that came with it goes too: the comma
 * and the line break before it (after the previous entry), or those after it for the first entry.
 * Where comments stand in that stretch, only the entry, one comma and the line it leaves blank go.
 */
function removeItem(config: JsonConfig, container: Node, index: number): string {
  const { body } = config;
  const items = container.children!;
  const item = items[index]!;
  const [prev, next] = [items[index - 1], items[index + 1]];
  const { open, close } = bounds(container);
  if (prev && !hasComment(body, end(prev), item.offset)) return splice(body, end(prev), end(item));
  if (!prev && next && !hasComment(body, end(item), next.offset)) return splice(body, item.offset, next.offset);
  if (!prev && !next && !hasComment(body, end(item), close)) {
    const anchor = commentsIn(body, open + 1, item.offset).at(-1)?.end ?? open + 1;
    const comma = commaAfter(body, end(item));
    const interior = body.slice(open + 1, anchor) + body.slice(comma === undefined ? end(item) : comma + 1, close);
    return body.slice(0, open + 1) + collapse(interior, lineIndent(body, open)) + body.slice(close);
  }
  const after = commaAfter(body, end(item));
  const before = after === undefined && prev ? commaAfter(body, end(prev)) : undefined;
  let from = item.offset;
  let to = after === undefined ? end(item) : after + 1;
  const restOfLine = /^[ \t]*(?:\r?\n|$)/.exec(body.slice(to));
  if (restOfLine && startsLine(body, from)) [from, to] = [lineStart(body, from), to + restOfLine[0].length];
  const out = splice(body, from, to);
  return before === undefined ? out : splice(out, before, before + 1);
}

/** Integers beyond 2^53 in the text of `node` (which is about to be written anew) would silently change. */
function checkLossless(node: Node, body: string): void {
  const raw = body.slice(node.offset, end(node));
  if (node.type === "number" && /^-?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))) {
    throw new JsonEditError(`it holds the integer ${raw}, which cannot be rewritten without losing precision`);
  }
  for (const child of node.children ?? []) checkLossless(child, body);
}

const nest = (path: readonly string[], value: Json): Json => path.reduceRight<Json>((inner, key) => ({ [key]: inner }), value);

// ---- edits of a whole config ----

/** The config's text with `value` at `path`, creating the objects on the way; nothing may be there yet. */
export function addAt(config: JsonConfig, path: readonly string[], value: Json): string {
  const { bom, body, root } = config;
  if (root === undefined) {
    const json = JSON.stringify(nest(path, value), null, config.unit).replace(/\n/g, config.eol);
    // A blank file is replaced; one holding only comments keeps them above.
    if (body.trim() === "") return `${bom}${json}${config.eol}`;
    return `${bom}${body}${body.endsWith("\n") ? "" : config.eol}${json}${config.eol}`;
  }
  let parent = root;
  let depth = 0;
  for (; depth < path.length - 1; depth++) {
    const next = containerAt(config, path.slice(0, depth + 1));
    if (next === undefined) break;
    parent = next;
  }
  return bom + appendItem(config, parent, path[depth], nest(path.slice(depth + 1), value));
}

/** The config's text with `value` appended to the list `container`. */
export function appendTo(config: JsonConfig, container: Node, value: Json): string {
  return config.bom + appendItem(config, container, undefined, value);
}

/** The config's text without entry `index` of `container` (which keeps others, so stays). */
export function removeFrom(config: JsonConfig, container: Node, index: number): string {
  return config.bom + removeItem(config, container, index);
}

/** The config's text with the value `node` written anew as `value`. */
export function replaceAt(config: JsonConfig, node: Node, value: Json): string {
  checkLossless(node, config.body);
  return config.bom + replaceValue(config, node, value);
}

/**
 * The config's text without entry `index` of the container at `path`; then each container on the
 * way that is left with nothing in it (no entry, no comment) and that setup created goes too.
 */
export function removeAt(config: JsonConfig, path: readonly string[], index: number, created: CreatedContainers, format: JsonFormat = "JSON"): string {
  let text = config.bom + removeItem(config, containerKind(config, path)!, index);
  for (let depth = path.length; depth > 0; depth--) {
    const at = path.slice(0, depth);
    if (!created(at)) break;
    const next = parseJsonConfig(text, format);
    const node = containerKind(next, at);
    if (node === undefined || (node.children ?? []).length > 0 || hasComment(next.body, node.offset + 1, end(node) - 1)) break;
    const parent = containerAt(next, at.slice(0, -1))!;
    const property = propertyOf(next.body, parent, at.at(-1)!, at.slice(0, -1))!;
    text = next.bom + removeItem(next, parent, parent.children!.indexOf(property));
  }
  return text;
}

/** The object or list at `path`, whichever it is. */
function containerKind(config: JsonConfig, path: readonly string[]): Node | undefined {
  const parent = containerAt(config, path.slice(0, -1));
  const property = parent && propertyOf(config.body, parent, path.at(-1)!, path.slice(0, -1));
  const node = property && valueOf(property);
  return node && (node.type === "object" || node.type === "array") ? node : undefined;
}

/**
 * The new text of a JSON file after `update` decides the entry `container.name` (undefined removes
 * it). `before` null means the file does not exist; the result is null when it still should not.
 * `container` left empty by a removal goes too when setup created it (`created`).
 */
export function editJsonEntry(
  before: string | null,
  container: string,
  name: string,
  update: (existing: Json | undefined) => Json | undefined,
  format: JsonFormat = "JSON",
  created: CreatedContainers = NONE_CREATED,
): string | null {
  const config = parseJsonConfig(before ?? "", format);
  let box: Node | undefined;
  let property: Node | undefined;
  try {
    box = containerAt(config, [container]);
    property = box && propertyOf(config.body, box, name, [container]);
  } catch (err) {
    // A key written twice stands in the way only of an edit that has something to change.
    if (err instanceof DuplicateKeyError && valuesAt(config, [container, name]).length === 0 && update(undefined) === undefined) return before;
    throw err;
  }
  const existing = property ? (getNodeValue(valueOf(property)) as Json) : undefined;
  const next = update(existing);
  if (next === undefined ? existing === undefined : Bun.deepEquals(next, existing)) return before;
  if (next === undefined) return removeAt(config, [container], box!.children!.indexOf(property!), created, format);
  if (property) return replaceAt(config, valueOf(property), next);
  return addAt(config, [container, name], next);
}

export interface EntryShape {
  /** Keys this tool owns: set from `desired`, or removed when `desired` lacks them. */
  owned: string[];
  /** The entry's environment object (`env`, `environment`) and the variables in it we own. */
  envKey: string;
  envOwned: string[];
}

/**
 * Our entry merged over what is there: keys we own take the desired values, every other key the
 * user added (timeouts, extra env variables, ...) is kept where it was.
 */
export function mergeEntry<T extends Record<string, unknown>>(existing: unknown, desired: T, shape: EntryShape): T {
  const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const out: Record<string, unknown> = isPlain(existing) ? { ...existing } : {};
  for (const key of shape.owned) {
    if (Object.hasOwn(desired, key)) out[key] = desired[key];
    else delete out[key];
  }
  const oldEnv = isPlain(out[shape.envKey]) ? (out[shape.envKey] as Record<string, unknown>) : undefined;
  const env: Record<string, unknown> = { ...oldEnv };
  for (const key of shape.envOwned) delete env[key];
  const wanted = desired[shape.envKey];
  if (isPlain(wanted)) Object.assign(env, wanted);
  // An empty env the harness wrote itself (`"env": {}`) stays; one we emptied goes.
  const keepEmpty = oldEnv !== undefined && Object.keys(oldEnv).length === 0;
  if (Object.keys(env).length > 0 || keepEmpty) out[shape.envKey] = env;
  else delete out[shape.envKey];
  return out as T;
}
