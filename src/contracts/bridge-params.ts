// Typing of `signet mcp <server> <tool> --param k=v` from the tool's JSON Schema (docs/api.md#bridge). The
// command line only carries text, so every value is read against what the parameter accepts:
// text stays text, everything else is parsed, and anything that does not fit is refused with a
// message a person can act on, before the tool is called. The daemon types a call's `params` with it
// (one request for `signet mcp <server> <tool> --param ...`); the CLI, `--json` arguments and help.
import type { BridgeTool } from "./bridge";

export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParamError";
  }
}

type Schema = Record<string, unknown>;

/** How values are read, per JSON type; `signet mcp <server> <tool> --help` shows the relevant ones. */
export const VALUE_RULES = {
  string: "text is passed as written, even when it looks like a number (007 stays \"007\"); `k=` is an empty string",
  number: "numbers are parsed (1, -2.5, 1e3); integer parameters refuse fractions",
  boolean: "booleans: true/false, yes/no, on/off or 1/0 (any case)",
  null: "`null` is null where the parameter allows null (send the text \"null\" with --json)",
  array: "arrays: repeat the parameter, one item each (--param k=a --param k=b), or give one JSON array (k='[\"a\",\"b\"]')",
  object: "objects: give them as JSON (k='{\"x\":1}')",
  any: "parameters without a type: JSON when the value parses as JSON (and no number in it changes on reading), else the text",
} as const;

export type ValueKind = keyof typeof VALUE_RULES;

export interface ParamInfo {
  name: string;
  /** The property's schema, `$ref` resolved. */
  schema: Schema;
  /** A short type for people: `string`, `integer | null`, `"a" | "b"`, `array of number`, `any`. */
  type: string;
  /** The kinds of value it admits, for picking the value rules a help page shows. */
  admits: ValueKind[];
  required: boolean;
  /** A value to show in an example `--param name=<example>`, one this module reads back as fitting. */
  example: string;
}

const BOOLEAN_WORDS = new Map([["true", true], ["yes", true], ["on", true], ["1", true], ["false", false], ["no", false], ["off", false], ["0", false]]);
// JSON refuses leading zeros, a leading "+" and a bare ".5"; people type them.
const LOOSE_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const NONE = Symbol("none");
const MAX_DEPTH = 8;

function asSchema(value: unknown): Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}

/** A local `$ref` (`#/$defs/Color`, as Python servers write enums and models) looked up in the tool's schema. */
function deref(s: Schema, root: Schema, depth = 0): Schema {
  if (typeof s.$ref !== "string" || !s.$ref.startsWith("#/") || depth > MAX_DEPTH) return s;
  let target: unknown = root;
  for (const part of s.$ref.slice(2).split("/")) target = asSchema(target)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return deref(asSchema(target), root, depth + 1);
}

/** The alternatives a value may take: `anyOf`/`oneOf` branches (nested ones flattened), or the schema itself. */
function branches(s: Schema, root: Schema, depth = 0): Schema[] {
  const resolved = deref(s, root);
  const alts = resolved.anyOf ?? resolved.oneOf ?? (Array.isArray(resolved.allOf) && resolved.allOf.length === 1 ? resolved.allOf : undefined);
  if (!Array.isArray(alts) || depth > MAX_DEPTH) return [resolved];
  return alts.flatMap((a) => branches(asSchema(a), root, depth + 1));
}

function typesOf(s: Schema): string[] {
  if (typeof s.type === "string") return [s.type];
  return Array.isArray(s.type) ? s.type.filter((t): t is string => typeof t === "string") : [];
}

/** The first alternative of a schema that names one of these types. */
function branchOf(s: Schema, root: Schema, ...types: string[]): Schema | undefined {
  return branches(s, root).find((b) => typesOf(b).some((t) => types.includes(t)));
}

function isUntyped(s: Schema, root: Schema): boolean {
  return branches(s, root).every((b) => typesOf(b).length === 0 && !("const" in b) && !Array.isArray(b.enum));
}

/** Why `name` is no tool of `server`, listing the tools it has. */
export function noSuchTool(server: string, tools: BridgeTool[], name: string): string {
  const names = tools.map((t) => t.name);
  return `server "${server}" has no tool "${name}"; its tools: ${names.length ? names.join(", ") : "(none)"}`;
}

/** The tool a command line names; a ParamError that lists the server's tools when it has none of that name. */
export function toolNamed(server: string, tools: BridgeTool[], name: string): BridgeTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new ParamError(`${noSuchTool(server, tools, name)} (see \`signet mcp ${server} list-tools\`)`);
  return tool;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function hasType(type: string, v: unknown): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isPlainObject(v);
    default:
      return typeof v === type;
  }
}

function fitsBranch(v: unknown, s: Schema, root: Schema, depth: number): boolean {
  if ("const" in s) return Bun.deepEquals(v, s.const);
  if (Array.isArray(s.enum) && !s.enum.some((e) => Bun.deepEquals(e, v))) return false;
  const types = typesOf(s);
  if (types.length > 0 && !types.some((t) => hasType(t, v))) return false;
  // Items are checked so an item of the wrong type is refused here; deeper structure is the server's job.
  if (Array.isArray(v) && isPlainObject(s.items) && depth < MAX_DEPTH) return v.every((item) => fits(item, asSchema(s.items), root, depth + 1));
  return true;
}

function fits(v: unknown, s: Schema, root: Schema, depth = 0): boolean {
  return branches(s, root).some((b) => fitsBranch(v, b, root, depth));
}

/**
 * Whether `value`, read from the digits `written`, is another number than they write: beyond
 * ±(2^53 − 1) not every integer has a number (9007199254740993 is read as 9007199254740992). An
 * exponent (1e20) says the writer wants the nearest floating-point number.
 */
function changes(written: string, value: number): boolean {
  if (/[eE]/.test(written) || Math.abs(value) <= Number.MAX_SAFE_INTEGER) return false;
  const digits = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(written);
  if (!digits) return false;
  const [, sign, whole, fraction = ""] = digits;
  if (!Number.isFinite(value) || /[1-9]/.test(fraction)) return true;
  return BigInt(`${sign === "-" ? "-" : ""}${whole || "0"}`) !== BigInt(value);
}

/** `raw` as JSON, with the first number written in it that reading changes; a SyntaxError when it is not JSON. */
function readJson(raw: string): { value: unknown; changed?: string } {
  let changed: string | undefined;
  const value: unknown = JSON.parse(raw, (_key, v: unknown, context?: { source?: string }) => {
    if (changed === undefined && typeof v === "number" && context?.source !== undefined && changes(context.source, v)) changed = context.source;
    return v;
  });
  return { value, changed };
}

/** `raw` as JSON, with the first number written in it that reading changes; undefined when it is not JSON. */
function parseJson(raw: string): { value: unknown; changed?: string } | undefined {
  try {
    return readJson(raw);
  } catch {
    return undefined;
  }
}

/** Why the number written `changed` cannot be sent as written. */
function changedNumber(changed: string): string {
  return `a JSON number holds every integer only up to ±${Number.MAX_SAFE_INTEGER}: ${changed} would be sent as ${Number(changed)}`;
}

/**
 * Arguments written whole in JSON (`signet mcp ... --json`, `--batch`): a SyntaxError when `raw` is
 * not JSON, a ParamError when a number written in it would reach the tool as another number.
 */
export function argumentsJson(raw: string): unknown {
  const { value, changed } = readJson(raw);
  if (changed !== undefined) throw new ParamError(`${changedNumber(changed)}; give it as a string`);
  return value;
}

/** `raw` read as JSON: NONE when it is not JSON, or when reading it would change a number it writes. */
function json(raw: string): unknown {
  const parsed = parseJson(raw);
  return parsed === undefined || parsed.changed !== undefined ? NONE : parsed.value;
}

/** `raw` read as a number in one of the forms people type; NONE when it is none, or reading would change it. */
function looseNumber(raw: string): number | typeof NONE {
  return LOOSE_NUMBER.test(raw) && !changes(raw, Number(raw)) ? Number(raw) : NONE;
}

/** The first number `raw` writes, alone or in JSON, that would be sent as another number. */
function changedNumberIn(raw: string): string | undefined {
  return LOOSE_NUMBER.test(raw) && changes(raw, Number(raw)) ? raw : parseJson(raw)?.changed;
}

/**
 * One command-line value read against a schema: the first reading that fits wins. Typed schemas
 * try `null`, the text itself, JSON, then the loose number and boolean forms, so text parameters
 * keep their text and `1` is a number where numbers are allowed before it is ever a boolean.
 * Schemas without a type take JSON when it parses, else the text. A reading that would send a
 * number other than the one written is no reading: where text fits, the text goes as written.
 */
function coerce(raw: string, s: Schema, root: Schema): unknown {
  const readings = isUntyped(s, root)
    ? [json(raw), raw]
    : [raw === "null" ? null : NONE, raw, json(raw), looseNumber(raw), BOOLEAN_WORDS.get(raw.toLowerCase()) ?? NONE];
  const found = readings.findIndex((r) => r !== NONE && fits(r, s, root));
  return found === -1 ? NONE : readings[found];
}

function describeType(schema: unknown, root: Schema, depth = 0): string {
  if (depth > MAX_DEPTH) return "any";
  const parts = branches(asSchema(schema), root).map((b) => {
    if ("const" in b) return JSON.stringify(b.const);
    if (Array.isArray(b.enum)) return b.enum.map((e) => JSON.stringify(e)).join(" | ");
    const types = typesOf(b);
    if (types.length === 0) return "any";
    return types.map((t) => (t === "array" && isPlainObject(b.items) ? `array of ${describeType(b.items, root, depth + 1)}` : t)).join(" | ");
  });
  return [...new Set(parts)].join(" | ");
}

/** The kinds of value a schema admits, integers counted as numbers. */
function admitted(s: Schema, root: Schema): ValueKind[] {
  const out = new Set<ValueKind>();
  for (const b of branches(s, root)) {
    const values = "const" in b ? [b.const] : Array.isArray(b.enum) ? b.enum : [];
    const types = values.length > 0 ? values.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v)) : typesOf(b);
    if (types.length === 0) out.add("any");
    for (const t of types) if (t === "integer" || Object.hasOwn(VALUE_RULES, t)) out.add(t === "integer" ? "number" : (t as ValueKind));
  }
  return [...out];
}

const EXAMPLE_BY_TYPE = new Map<string, unknown>([["string", "text"], ["number", 1], ["integer", 1], ["boolean", true], ["object", {}]]);

/** An example from the schema, else its default, else a listed value, else one of its type. */
function exampleOf(s: Schema, root: Schema, depth = 0): unknown {
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ("default" in s && s.default !== null) return s.default;
  const b = branches(s, root).find((x) => "const" in x || Array.isArray(x.enum) || typesOf(x).some((t) => t !== "null")) ?? {};
  if ("const" in b) return b.const;
  if (Array.isArray(b.enum) && b.enum.length > 0) return b.enum[0];
  const type = typesOf(b).find((t) => t !== "null");
  if (type === "array") return depth < MAX_DEPTH ? [exampleOf(asSchema(b.items), root, depth + 1)] : [];
  return EXAMPLE_BY_TYPE.get(type ?? "") ?? "value";
}

export function parameters(tool: BridgeTool): ParamInfo[] {
  const root = tool.inputSchema;
  const required = new Set(Array.isArray(root.required) ? root.required : []);
  return Object.entries(root.properties ?? {}).map(([name, raw]) => {
    const schema = deref(asSchema(raw), root);
    const example = exampleOf(schema, root);
    return {
      name,
      schema,
      type: describeType(schema, root),
      admits: admitted(schema, root),
      required: required.has(name),
      example: typeof example === "string" ? example : JSON.stringify(example),
    };
  });
}

function listing(tool: BridgeTool, params: ParamInfo[]): string {
  if (params.length === 0) return `${tool.name} takes no parameters`;
  const rows = params.map((p) => `  ${p.name}: ${p.type}${p.required ? ", required" : ""}`);
  return ["valid parameters:", ...rows].join("\n");
}

function misfit(name: string, s: Schema, root: Schema, given: string): string {
  const changed = changedNumberIn(given);
  const hint =
    changed !== undefined
      ? ` (${changedNumber(changed)})`
      : branchOf(s, root, "array", "object")
        ? " (give arrays and objects as JSON)"
        : "";
  return `parameter "${name}": expected ${describeType(s, root)}, got ${JSON.stringify(given)}${hint}`;
}

/** An array parameter's values: a JSON array is the whole array, any other value is one item. */
function collectItems(name: string, values: string[], s: Schema, root: Schema): unknown {
  const itemSchema = asSchema(branchOf(s, root, "array")?.items);
  const items: unknown[] = [];
  for (const raw of values) {
    const parsed = json(raw);
    if (Array.isArray(parsed)) {
      items.push(...parsed);
      continue;
    }
    const item = coerce(raw, itemSchema, root);
    if (item === NONE) throw new ParamError(misfit(name, s, root, raw));
    items.push(item);
  }
  if (!fits(items, s, root)) throw new ParamError(misfit(name, s, root, values.join(" ")));
  return items;
}

function typedValue(key: string, values: string[], s: Schema, root: Schema): unknown {
  const single = values.length === 1 ? coerce(values[0] as string, s, root) : NONE;
  if (single !== NONE) return single;
  if (branchOf(s, root, "array")) return collectItems(key, values, s, root);
  if (values.length > 1) throw new ParamError(`parameter "${key}" was given ${values.length} times; only array parameters repeat`);
  throw new ParamError(misfit(key, s, root, values[0] as string));
}

/** Arguments from repeated `--param key=value`, typed by the tool's input schema (rules in VALUE_RULES). */
export function parseParams(tool: BridgeTool, pairs: string[]): Record<string, unknown> {
  const root = tool.inputSchema;
  const params = parameters(tool);
  const byName = new Map(params.map((p) => [p.name, p]));
  // Tools that declare `additionalProperties` accept keys beyond their listed ones, typed by it.
  const extra = root.additionalProperties === true ? {} : isPlainObject(root.additionalProperties) ? root.additionalProperties : undefined;

  const given = new Map<string, string[]>();
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new ParamError(`--param expects key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    if (!byName.has(key) && !extra && !given.has(key)) problems.push(`unknown parameter "${key}"`);
    given.set(key, [...(given.get(key) ?? []), pair.slice(eq + 1)]);
  }
  for (const p of params) if (p.required && !given.has(p.name)) problems.push(`missing required parameter "${p.name}"`);
  if (problems.length > 0) throw new ParamError(`${problems.join("; ")} for tool ${tool.name}\n${listing(tool, params)}`);

  // fromEntries, so a key like "__proto__" stays an ordinary property.
  return Object.fromEntries([...given].map(([key, values]) => [key, typedValue(key, values, byName.get(key)?.schema ?? asSchema(extra), root)]));
}

/**
 * Raw arguments (`--json '{...}'` or `--json -`) go through as given once they are a JSON object:
 * they are the way around this module's reading of a schema (a text "null", a shape it does not
 * model), so only the server judges them, and its answer comes back as the tool's result.
 */
export function validateArguments(tool: BridgeTool, args: unknown): Record<string, unknown> {
  if (!isPlainObject(args)) {
    const kind = args === null ? "null" : Array.isArray(args) ? "an array" : `a ${typeof args}`;
    throw new ParamError(`arguments for tool ${tool.name} must be a JSON object like {"key": "value"}, got ${kind}`);
  }
  return args;
}
