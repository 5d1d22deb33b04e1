// Editing one named entry of a JSON config (`mcpServers.signet`, `mcp.signet`) and nothing else.
// Files are rewritten with 2-space indentation; an entry that already holds what we would write
// leaves the file's text untouched, whatever its formatting.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class JsonEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonEditError";
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Integers beyond 2^53 would silently change when parsed and written back; refuse instead.
 * (Strings are blanked first so digits inside them do not count.)
 */
function checkLossless(text: string): void {
  const code = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const m of code.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    const tok = m[0];
    if (/[.eE]/.test(tok)) continue;
    if (!Number.isSafeInteger(Number(tok))) {
      throw new JsonEditError(`it holds the integer ${tok}, which cannot be rewritten without losing precision`);
    }
  }
}

/** The top-level object of a config (blank text reads as empty); `jsonc` also allows comments and trailing commas. */
export function readJsonObject(text: string, jsonc = false): JsonObject {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = jsonc ? Bun.JSONC.parse(body) : JSON.parse(body);
  } catch (err) {
    throw new JsonEditError(`not valid ${jsonc ? "JSONC" : "JSON"} (${(err as Error).message})`);
  }
  if (!isObject(parsed)) throw new JsonEditError("expected a JSON object at the top level");
  return parsed;
}

/** A config about to be rewritten: read, and refused when rewriting it would lose precision. */
export function parseJsonObject(text: string): JsonObject {
  const doc = readJsonObject(text);
  checkLossless(text);
  return doc;
}

export function stringifyJson(value: Json): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The new text of a JSON file after `update` decides the entry `container.name` (undefined removes
 * it). `before` null means the file does not exist; the result is null when it still should not.
 * A container left empty by a removal is removed too.
 */
export function editJsonEntry(
  before: string | null,
  container: string,
  name: string,
  update: (existing: Json | undefined) => Json | undefined,
): string | null {
  const doc = before === null ? {} : parseJsonObject(before);
  const box = Object.hasOwn(doc, container) ? doc[container] : undefined;
  if (box !== undefined && !isObject(box)) throw new JsonEditError(`"${container}" is not an object`);
  const existing = box !== undefined && Object.hasOwn(box, name) ? box[name] : undefined;
  const next = update(existing);
  if (next === undefined ? existing === undefined : jsonEqual(next, existing)) return before;
  if (next === undefined) {
    const rest = { ...box };
    delete rest[name];
    if (Object.keys(rest).length === 0) delete doc[container];
    else doc[container] = rest;
  } else {
    doc[container] = { ...(box ?? {}), [name]: next };
  }
  return stringifyJson(doc);
}

export interface EntryShape {
  /** Keys this tool owns: set from `desired`, or removed when `desired` lacks them. */
  owned: string[];
  /** The entry's environment object (`env`, `environment`) and the variables in it we own. */
  envKey: string;
  envOwned: string[];
  /** List keys we only add to (e.g. Codex `env_vars`), never take from. */
  addToLists?: Record<string, string[]>;
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
  for (const [key, values] of Object.entries(shape.addToLists ?? {})) {
    if (values.length === 0) continue;
    const list = Array.isArray(out[key]) ? [...(out[key] as unknown[])] : [];
    for (const v of values) if (!list.includes(v)) list.push(v);
    out[key] = list;
  }
  return out as T;
}
