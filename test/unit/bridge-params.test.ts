// Typing of `--param k=v` from a tool's JSON Schema (docs/api.md#bridge). Schemas of the echo, get-sum,
// get-structured-content, get-annotated-message and get-resource-links tools are copied from
// server-everything's tools/list; the union shapes are what zod 4 and pydantic emit.
import { describe, expect, test } from "bun:test";
import type { BridgeTool } from "../../src/contracts/bridge";
import { ParamError, parameters, parseParams, validateArguments } from "../../src/contracts/bridge-params";

function tool(name: string, properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}): BridgeTool {
  return { name, inputSchema: { type: "object", properties, required, ...extra } };
}

const echo = tool("echo", { message: { type: "string", description: "Message to echo" } }, ["message"]);
const getSum = tool("get-sum", { a: { type: "number", description: "First number" }, b: { type: "number", description: "Second number" } }, ["a", "b"]);
const weather = tool(
  "get-structured-content",
  { location: { type: "string", enum: ["New York", "Chicago", "Los Angeles"], description: "Choose city" } },
  ["location"],
);
const annotated = tool(
  "get-annotated-message",
  {
    messageType: { type: "string", enum: ["error", "success", "debug"], description: "Type of message to demonstrate different annotation patterns" },
    includeImage: { default: false, description: "Whether to include an example image", type: "boolean" },
  },
  ["messageType"],
);
const links = tool("get-resource-links", { count: { default: 3, description: "Number of resource links to return (1-10)", type: "number", minimum: 1, maximum: 10 } });

function fails(t: BridgeTool, pairs: string[]): string {
  try {
    parseParams(t, pairs);
  } catch (err) {
    expect(err).toBeInstanceOf(ParamError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(pairs)} to be refused`);
}

describe("strings", () => {
  test("a numeric-looking value for a string parameter stays the same text", () => {
    expect(parseParams(echo, ["message=007"])).toEqual({ message: "007" });
    expect(parseParams(echo, ["message=true"])).toEqual({ message: "true" });
    expect(parseParams(echo, ["message=null"])).toEqual({ message: "null" });
    expect(parseParams(echo, ['message={"a":1}'])).toEqual({ message: '{"a":1}' });
  });
  test("`k=` is an empty string; only the first = splits key from value", () => {
    expect(parseParams(echo, ["message="])).toEqual({ message: "" });
    expect(parseParams(echo, ["message=a=b"])).toEqual({ message: "a=b" });
  });
  test("a pair without = or without a key is refused", () => {
    expect(fails(echo, ["message"])).toBe('--param expects key=value, got "message"');
    expect(fails(echo, ["=x"])).toBe('--param expects key=value, got "=x"');
  });
});

describe("numbers and integers", () => {
  test("numbers are parsed, including the forms JSON refuses", () => {
    expect(parseParams(getSum, ["a=1", "b=-2.5"])).toEqual({ a: 1, b: -2.5 });
    expect(parseParams(getSum, ["a=007", "b=+.5"])).toEqual({ a: 7, b: 0.5 });
    expect(parseParams(getSum, ["a=1e3", "b=0"])).toEqual({ a: 1000, b: 0 });
  });
  test("a value that is not a number names the parameter, the type and the value", () => {
    expect(fails(getSum, ["a=x", "b=1"])).toBe('parameter "a": expected number, got "x"');
    expect(fails(getSum, ["a=", "b=1"])).toBe('parameter "a": expected number, got ""');
    expect(fails(getSum, ["a=Infinity", "b=1"])).toBe('parameter "a": expected number, got "Infinity"');
  });
  test("integers refuse fractions; 2.0 and 1e2 are whole numbers", () => {
    const page = tool("page", { n: { type: "integer" } });
    expect(parseParams(page, ["n=3"])).toEqual({ n: 3 });
    expect(parseParams(page, ["n=2.0"])).toEqual({ n: 2 });
    expect(parseParams(page, ["n=1e2"])).toEqual({ n: 100 });
    expect(fails(page, ["n=1.5"])).toBe('parameter "n": expected integer, got "1.5"');
  });
});

describe("integers beyond what a number holds exactly", () => {
  const big = "9007199254740993";
  const refusal = (type: string, given = big) =>
    `parameter "v": expected ${type}, got ${JSON.stringify(given)} (a JSON number holds every integer only up to ±9007199254740991: ${big} would be sent as 9007199254740992)`;
  test("where only numbers fit, one written in digits that no number holds is refused, not changed", () => {
    expect(fails(tool("i", { v: { type: "integer" } }), [`v=${big}`])).toBe(refusal("integer"));
    expect(fails(tool("n", { v: { type: "number" } }), [`v=${big}`])).toBe(refusal("number"));
    expect(fails(tool("a", { v: { type: "array", items: { type: "integer" } } }), [`v=[1,${big}]`])).toBe(refusal("array of integer", `[1,${big}]`));
    expect(fails(tool("o", { v: { type: "object" } }), [`v={"x":${big}}`])).toBe(refusal("object", `{"x":${big}}`));
    expect(fails(tool("i", { v: { type: "integer" } }), [`v=-${big}`])).toContain(`-${big} would be sent as -9007199254740992`);
  });
  test("where text fits, it goes as written", () => {
    expect(parseParams(tool("any", { v: {} }), [`v=${big}`])).toEqual({ v: big });
    expect(parseParams(tool("id", { v: { type: ["string", "integer"] } }), [`v=${big}`])).toEqual({ v: big });
  });
  test("integers a number holds, and numbers written with an exponent, are read as before", () => {
    const n = tool("i", { v: { type: "integer" } });
    expect(parseParams(n, ["v=9007199254740991"])).toEqual({ v: 9007199254740991 });
    expect(parseParams(n, ["v=9007199254740994"])).toEqual({ v: 9007199254740994 });
    expect(parseParams(n, ["v=1e20"])).toEqual({ v: 1e20 });
  });
});

describe("booleans", () => {
  const flag = tool("flag", { on: { type: "boolean" } });
  test("true/false, yes/no, on/off and 1/0 in any case", () => {
    const read = (v: string) => parseParams(flag, [`on=${v}`]).on;
    expect(["true", "TRUE", "yes", "Yes", "on", "1"].map(read)).toEqual([true, true, true, true, true, true]);
    expect(["false", "False", "no", "NO", "off", "0"].map(read)).toEqual([false, false, false, false, false, false]);
  });
  test("anything else is refused", () => {
    expect(fails(flag, ["on=maybe"])).toBe('parameter "on": expected boolean, got "maybe"');
    expect(fails(flag, ["on="])).toBe('parameter "on": expected boolean, got ""');
  });
  test("from the real schema: an enum and a boolean together", () => {
    expect(parseParams(annotated, ["messageType=error", "includeImage=yes"])).toEqual({ messageType: "error", includeImage: true });
  });
});

describe("enums and const", () => {
  test("a listed value passes; another is refused with the allowed values", () => {
    expect(parseParams(weather, ["location=New York"])).toEqual({ location: "New York" });
    expect(fails(weather, ["location=Boston"])).toBe('parameter "location": expected "New York" | "Chicago" | "Los Angeles", got "Boston"');
    expect(fails(weather, ["location=chicago"])).toBe('parameter "location": expected "New York" | "Chicago" | "Los Angeles", got "chicago"');
  });
  test("an enum without a type takes each value as the type it is listed with", () => {
    const mixed = tool("mixed", { v: { enum: [1, "two", true, null] } });
    expect(["1", "two", "true", "null"].map((v) => parseParams(mixed, [`v=${v}`]).v)).toEqual([1, "two", true, null]);
    expect(fails(mixed, ["v=2"])).toBe('parameter "v": expected 1 | "two" | true | null, got "2"');
  });
  test("const accepts only its value", () => {
    const fixed = tool("fixed", { mode: { type: "string", const: "fast" }, level: { const: 3 } });
    expect(parseParams(fixed, ["mode=fast", "level=3"])).toEqual({ mode: "fast", level: 3 });
    expect(fails(fixed, ["level=4"])).toBe('parameter "level": expected 3, got "4"');
  });
  test("enums behind a local $ref (how pydantic writes them) are checked", () => {
    const colors = tool("paint", { color: { $ref: "#/$defs/Color" } }, ["color"], { $defs: { Color: { type: "string", enum: ["red", "green"] } } });
    expect(parseParams(colors, ["color=red"])).toEqual({ color: "red" });
    expect(fails(colors, ["color=blue"])).toBe('parameter "color": expected "red" | "green", got "blue"');
  });
});

describe("arrays", () => {
  const tags = tool("tag", { tags: { type: "array", items: { type: "string" } }, ids: { type: "array", items: { type: "integer" } } });
  test("a repeated parameter gives one item each, typed by `items`", () => {
    expect(parseParams(tags, ["tags=a", "tags=007", "ids=1", "ids=2"])).toEqual({ tags: ["a", "007"], ids: [1, 2] });
  });
  test("a single value is a one-item array; commas are part of the value", () => {
    expect(parseParams(tags, ["tags=a,b", "ids=5"])).toEqual({ tags: ["a,b"], ids: [5] });
  });
  test("a JSON array is the whole array, and repeats add to it", () => {
    expect(parseParams(tags, ['tags=["a","b"]', "ids=[1,2]", "ids=3"])).toEqual({ tags: ["a", "b"], ids: [1, 2, 3] });
  });
  test("an item of the wrong type is refused", () => {
    expect(fails(tags, ["ids=1", "ids=x"])).toBe('parameter "ids": expected array of integer, got "x" (give arrays and objects as JSON)');
    expect(fails(tags, ['ids=[1,"x"]'])).toBe('parameter "ids": expected array of integer, got "[1,\\"x\\"]" (give arrays and objects as JSON)');
  });
  test("only array parameters may repeat", () => {
    expect(fails(echo, ["message=a", "message=b"])).toBe('parameter "message" was given 2 times; only array parameters repeat');
  });
  test("a parameter that is a string or an array: one value is text, repeats make the array", () => {
    const either = tool("either", { q: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } });
    expect(parseParams(either, ["q=a"])).toEqual({ q: "a" });
    expect(parseParams(either, ["q=a", "q=b"])).toEqual({ q: ["a", "b"] });
  });
});

describe("objects", () => {
  const filter = tool("filter", { where: { type: "object", properties: { x: { type: "number" } } } });
  test("objects are given as JSON; their inside is left to the server", () => {
    expect(parseParams(filter, ['where={"x":1,"y":{"z":[true]}}'])).toEqual({ where: { x: 1, y: { z: [true] } } });
    expect(parseParams(filter, ['where={"x":"s"}'])).toEqual({ where: { x: "s" } });
  });
  test("anything but a JSON object is refused with a hint", () => {
    expect(fails(filter, ["where=x=1"])).toBe('parameter "where": expected object, got "x=1" (give arrays and objects as JSON)');
    expect(fails(filter, ["where=[1]"])).toBe('parameter "where": expected object, got "[1]" (give arrays and objects as JSON)');
  });
});

describe("null and unions", () => {
  test("type as an array: null is null only where allowed; text stays text", () => {
    const note = tool("note", { text: { type: ["string", "null"] } });
    expect(parseParams(note, ["text=null"])).toEqual({ text: null });
    expect(parseParams(note, ["text="])).toEqual({ text: "" });
    expect(parseParams(note, ["text=42"])).toEqual({ text: "42" });
  });
  test("anyOf of integer and null (pydantic's Optional[int])", () => {
    const limit = tool("limit", { n: { anyOf: [{ type: "integer" }, { type: "null" }], default: null } });
    expect(parseParams(limit, ["n=null"])).toEqual({ n: null });
    expect(parseParams(limit, ["n=5"])).toEqual({ n: 5 });
    expect(fails(limit, ["n=five"])).toBe('parameter "n": expected integer | null, got "five"');
  });
  test("a union that admits text keeps the text, even when it looks like a number", () => {
    const id = tool("id", { id: { type: ["string", "number"] } });
    expect(parseParams(id, ["id=42"])).toEqual({ id: "42" });
  });
  test("a restricted text branch lets other values fall to the typed branches", () => {
    const mode = tool("mode", { cache: { oneOf: [{ type: "boolean" }, { type: "string", enum: ["auto"] }] } });
    expect(parseParams(mode, ["cache=auto"])).toEqual({ cache: "auto" });
    expect(parseParams(mode, ["cache=no"])).toEqual({ cache: false });
    expect(fails(mode, ["cache=x"])).toBe('parameter "cache": expected boolean | "auto", got "x"');
  });
  test("where a number is allowed, 1 is a number before it is a boolean", () => {
    const n = tool("n", { v: { type: ["boolean", "number"] } });
    expect(parseParams(n, ["v=1"])).toEqual({ v: 1 });
    expect(parseParams(n, ["v=yes"])).toEqual({ v: true });
  });
  test("without a type: JSON when it parses, else the text", () => {
    const any = tool("any", { v: { description: "anything" } });
    const read = (v: string) => parseParams(any, [`v=${v}`]).v;
    expect(["42", "007", "hello", "true", '{"a":1}', "[1]", "null"].map(read)).toEqual([42, "007", "hello", true, { a: 1 }, [1], null]);
  });
});

describe("unknown, missing and default parameters", () => {
  test("optional parameters left out stay absent; the server applies its defaults", () => {
    expect(parseParams(links, [])).toEqual({});
    expect(parseParams(links, ["count=2"])).toEqual({ count: 2 });
  });
  test("an unknown parameter is refused with the valid ones, their types and required marks", () => {
    expect(fails(annotated, ["messageType=error", "image=true"])).toBe(
      'unknown parameter "image" for tool get-annotated-message\n' +
        "valid parameters:\n" +
        '  messageType: "error" | "success" | "debug", required\n' +
        "  includeImage: boolean",
    );
  });
  test("every missing required parameter is named at once, with the unknown ones", () => {
    expect(fails(getSum, ["c=1"])).toBe(
      'unknown parameter "c"; missing required parameter "a"; missing required parameter "b" for tool get-sum\n' +
        "valid parameters:\n" +
        "  a: number, required\n" +
        "  b: number, required",
    );
  });
  test("a key given twice is named once", () => {
    expect(fails(echo, ["message=a", "x=1", "x=2"]).split("\n")[0]).toBe('unknown parameter "x" for tool echo');
  });
  test("a tool without parameters says so", () => {
    expect(fails(tool("get-env", {}), ["x=1"])).toBe('unknown parameter "x" for tool get-env\nget-env takes no parameters');
  });
  test("a schema declaring additionalProperties accepts other keys, typed by it", () => {
    const open = tool("open", { a: { type: "string" } }, [], { additionalProperties: { type: "number" } });
    expect(parseParams(open, ["a=1", "b=2"])).toEqual({ a: "1", b: 2 });
    expect(fails(open, ["b=x"])).toBe('parameter "b": expected number, got "x"');
    const loose = tool("loose", {}, [], { additionalProperties: true });
    const args = parseParams(loose, ["__proto__=1", "k=v"]);
    expect(Object.keys(args)).toEqual(["__proto__", "k"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });
});

describe("parameters", () => {
  test("types, admitted kinds, required marks and examples for help pages", () => {
    const t = tool(
      "mix",
      {
        city: { type: "string", enum: ["New York", "Chicago"] },
        n: { type: "integer", default: 3 },
        ids: { type: "array", items: { type: "integer" } },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        where: { type: "object" },
        any: {},
      },
      ["city", "ids"],
    );
    expect(parameters(t).map(({ name, type, admits, required, example }) => ({ name, type, admits, required, example }))).toEqual([
      { name: "city", type: '"New York" | "Chicago"', admits: ["string"], required: true, example: "New York" },
      { name: "n", type: "integer", admits: ["number"], required: false, example: "3" },
      { name: "ids", type: "array of integer", admits: ["array"], required: true, example: "[1]" },
      { name: "note", type: "string | null", admits: ["string", "null"], required: false, example: "text" },
      { name: "where", type: "object", admits: ["object"], required: false, example: "{}" },
      { name: "any", type: "any", admits: ["any"], required: false, example: "value" },
    ]);
  });
  test("every example reads back as a value of its parameter", () => {
    const t = tool("mix", { a: { type: "boolean" }, b: { oneOf: [{ type: "null" }, { type: "number" }] }, c: { type: "array", items: { enum: ["x", "y"] } } });
    const pairs = parameters(t).map((p) => `${p.name}=${p.example}`);
    expect(parseParams(t, pairs)).toEqual({ a: true, b: 1, c: ["x"] });
  });
});

describe("validateArguments", () => {
  test("a JSON object goes through as given, unknown keys and all", () => {
    const args = { a: "1", extra: [1] };
    expect(validateArguments(getSum, args)).toBe(args);
  });
  test("anything but an object is refused", () => {
    expect(() => validateArguments(getSum, [1, 2])).toThrow(new ParamError('arguments for tool get-sum must be a JSON object like {"key": "value"}, got an array'));
    expect(() => validateArguments(getSum, null)).toThrow('arguments for tool get-sum must be a JSON object like {"key": "value"}, got null');
    expect(() => validateArguments(getSum, "a=1")).toThrow('arguments for tool get-sum must be a JSON object like {"key": "value"}, got a string');
  });
});
