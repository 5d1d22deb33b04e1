// Editing one named entry of a JSON config (`mcpServers.signet`, `mcp.signet`) and nothing else.
// Files are read as JSONC (comments, trailing commas) and edited in place with jsonc-parser: only
// the entry's text changes (the lines it touches are re-indented in the file's own style), so
// comments and every other key stay as written. An entry that already holds what we would write
// leaves the file's text untouched.
import {
  applyEdits,
  createScanner,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  SyntaxKind,
  type Edit,
  type FormattingOptions,
  type Node,
  type ParseError,
} from "jsonc-parser";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What the harness calls its files, for error messages; both are read as JSONC. */
export type JsonFormat = "JSON" | "JSONC";

class JsonEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonEditError";
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const BOM = "\uFEFF";

interface ParsedConfig {
  /** The text after a byte order mark, which jsonc-parser would take for an invalid symbol. */
  body: string;
  /** undefined when the text holds no value (blank, or only comments). */
  root: Node | undefined;
  doc: JsonObject;
}

function parseConfig(text: string, format: JsonFormat): ParsedConfig {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { allowTrailingComma: true, allowEmptyContent: true });
  const [first] = errors;
  if (first) {
    const before = body.slice(0, first.offset);
    const line = before.split("\n").length;
    const column = first.offset - before.lastIndexOf("\n");
    const problem = printParseErrorCode(first.error).replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase();
    throw new JsonEditError(`not valid ${format} (${problem} at line ${line}, column ${column})`);
  }
  const doc: unknown = root === undefined ? {} : getNodeValue(root);
  if (!isObject(doc)) throw new JsonEditError("expected a JSON object at the top level");
  return { body, root, doc };
}

/** The top-level object of a config (blank text reads as empty). */
export function readJsonObject(text: string, format: JsonFormat = "JSON"): JsonObject {
  return parseConfig(text, format).doc;
}

/** Integers beyond 2^53 in the text of `node` (which is about to be written anew) would silently change. */
function checkLossless(node: Node | undefined, body: string): void {
  if (node === undefined) return;
  const raw = body.slice(node.offset, node.offset + node.length);
  if (node.type === "number" && /^-?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))) {
    throw new JsonEditError(`it holds the integer ${raw}, which cannot be rewritten without losing precision`);
  }
  for (const child of node.children ?? []) checkLossless(child, body);
}

/** The file's own indentation (that of the first top-level key on a line of its own, else 2 spaces) and line ending. */
function formattingOf(body: string, root: Node | undefined): FormattingOptions {
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  for (const property of root?.children ?? []) {
    const indent = body.slice(body.lastIndexOf("\n", property.offset - 1) + 1, property.offset);
    if (/^[ \t]+$/.test(indent)) return { insertSpaces: !indent.includes("\t"), tabSize: indent.length, eol };
  }
  return { insertSpaces: true, tabSize: 2, eol };
}

/** The offset of the comma that is the next token after `at` (comments skipped), if it is one. */
function commaAfter(text: string, at: number): number | undefined {
  const scanner = createScanner(text, true);
  scanner.setPosition(at);
  return scanner.scan() === SyntaxKind.CommaToken ? scanner.getTokenOffset() : undefined;
}

function hasComment(text: string, from: number, to: number): boolean {
  const scanner = createScanner(text.slice(from, to));
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.LineCommentTrivia || token === SyntaxKind.BlockCommentTrivia) return true;
  }
  return false;
}

/**
 * `text` without the key at `path`. jsonc-parser removes everything from the end of the previous
 * key (or the opening brace) to the key's end, which undoes its own insertion exactly; where that
 * stretch holds comments outside the key, only the key, one comma and the line it leaves blank go.
 */
function removeKey(text: string, path: string[], formattingOptions: FormattingOptions): string {
  const property = findNodeAtLocation(parseTree(text)!, path)!.parent!;
  const end = property.offset + property.length;
  const [whole] = modify(text, path, undefined, {});
  if (!hasComment(text, whole!.offset, property.offset) && !hasComment(text, end, whole!.offset + whole!.length)) {
    return applyEdits(text, modify(text, path, undefined, { formattingOptions }));
  }
  const siblings = property.parent!.children!;
  const previous = siblings[siblings.indexOf(property) - 1];
  const after = commaAfter(text, end);
  const before = after === undefined && previous ? commaAfter(text, previous.offset + previous.length) : undefined;
  let from = property.offset;
  let to = after === undefined ? end : after + 1;
  const lineStart = text.lastIndexOf("\n", from - 1) + 1;
  const restOfLine = /^[ \t]*(?:\r?\n|$)/.exec(text.slice(to));
  if (restOfLine && /^[ \t]*$/.test(text.slice(lineStart, from))) [from, to] = [lineStart, to + restOfLine[0].length];
  const edits: Edit[] = [{ offset: from, length: to - from, content: "" }];
  if (before !== undefined) edits.push({ offset: before, length: 1, content: "" });
  return applyEdits(text, edits);
}

function stringifyJson(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The new text of a JSON file after `update` decides the entry `container.name` (undefined removes
 * it). `before` null means the file does not exist; the result is null when it still should not.
 * A container left empty by a removal (no keys, no comments) is removed too.
 */
export function editJsonEntry(
  before: string | null,
  container: string,
  name: string,
  update: (existing: Json | undefined) => Json | undefined,
  format: JsonFormat = "JSON",
): string | null {
  const text = before ?? "";
  const { body, root, doc } = parseConfig(text, format);
  const box = Object.hasOwn(doc, container) ? doc[container] : undefined;
  if (box !== undefined && !isObject(box)) throw new JsonEditError(`"${container}" is not an object`);
  const existing = box !== undefined && Object.hasOwn(box, name) ? box[name] : undefined;
  const next = update(existing);
  if (next === undefined ? existing === undefined : Bun.deepEquals(next, existing)) return before;
  // Nothing to keep in a blank file (and `next` is set: there was no entry to remove).
  if (body.trim() === "") return stringifyJson({ [container]: { [name]: next! } });

  const formattingOptions = formattingOf(body, root);
  let out: string;
  if (next === undefined) {
    out = removeKey(body, [container, name], formattingOptions);
    const left = findNodeAtLocation(parseTree(out)!, [container])!;
    if (/^\{\s*\}$/.test(out.slice(left.offset, left.offset + left.length))) out = removeKey(out, [container], formattingOptions);
  } else {
    checkLossless(root && findNodeAtLocation(root, [container, name]), body);
    out = applyEdits(body, modify(body, [container, name], next, { formattingOptions }));
  }
  // Written files end with a newline, whether or not the original did.
  if (!out.endsWith("\n")) out += formattingOptions.eol;
  return (text.startsWith(BOM) ? BOM : "") + out;
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
