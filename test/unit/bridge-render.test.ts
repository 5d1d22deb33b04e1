// Readable renderings of the MCP bridge: server and tool lists, help pages, and call results
// (text, saved images, resources, structured content as tables, errors). Results are copied
// from what server-everything returns.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { BridgeTool, InstalledServer } from "../../src/contracts/bridge";
import { renderCallResult, renderServerHelp, renderServerList, renderToolHelp, renderToolList } from "../../src/cli/mcp/render";

const everything: InstalledServer = {
  name: "everything",
  transport: { type: "stdio", command: "node", args: ["server-everything/dist/index.js", "stdio", "--title", "My Server"], env: {} },
  enabled: true,
  description: "Reference server\nwith every feature",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};
const remote: InstalledServer = {
  ...everything,
  name: "remote",
  transport: { type: "http", url: "https://example.com/mcp", headers: { authorization: "secret:TOKEN" } },
  enabled: false,
  description: null,
};

const echo: BridgeTool = {
  name: "echo",
  title: "Echo Tool",
  description: "Echoes back the input string",
  inputSchema: { type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] },
};
const weather: BridgeTool = {
  name: "get-structured-content",
  title: "Get Structured Content Tool",
  description: "Returns structured content along with an output schema for client data validation",
  inputSchema: {
    type: "object",
    properties: { location: { type: "string", enum: ["New York", "Chicago", "Los Angeles"], description: "Choose city" } },
    required: ["location"],
  },
};
const env: BridgeTool = { name: "get-env", description: "Returns all environment variables", inputSchema: { type: "object", properties: {} } };

describe("renderServerList", () => {
  test("name, status, transport and description in aligned columns; arguments quoted as a shell reads them", () => {
    expect(renderServerList([everything, remote])).toBe(
      [
        "NAME        STATUS    TRANSPORT  COMMAND / URL                                                   DESCRIPTION",
        "everything  enabled   stdio      node server-everything/dist/index.js stdio --title 'My Server'  Reference server with every feature",
        "remote      disabled  http       https://example.com/mcp",
      ].join("\n"),
    );
  });
  test("control and bidi characters in a listing are shown as escapes, columns still aligned", () => {
    const hostile: InstalledServer = { ...remote, transport: { type: "http", url: "https://example.com/\u001b[2J", headers: {} }, description: "x\u202ey" };
    expect(renderServerList([hostile, remote]).split("\n").slice(1)).toEqual([
      "remote  disabled  http       https://example.com/\\x1b[2J  x\\u202ey",
      "remote  disabled  http       https://example.com/mcp",
    ]);
  });
  test("a listing that knows which servers are live says so", () => {
    expect(renderServerList([{ ...remote, enabled: true, running: true }]).split("\n")[1]).toBe("remote  enabled, running  http       https://example.com/mcp");
  });
  test("no servers says how to add one", () => {
    expect(renderServerList([])).toBe(
      "No MCP servers installed. Add one with `signet mcp add <name> -- <command> [args]` or `signet mcp add <name> --url <url>`.",
    );
  });
});

// The exact layouts below are checked wide; "help fits 80 columns" checks the wrapping.
const columnsBefore = process.env.COLUMNS;
beforeAll(() => {
  process.env.COLUMNS = "200";
});
afterAll(() => {
  if (columnsBefore === undefined) delete process.env.COLUMNS;
  else process.env.COLUMNS = columnsBefore;
});

describe("help fits 80 columns", () => {
  test("tool lists, server and tool help wrap long descriptions under their column", () => {
    process.env.COLUMNS = "80";
    try {
      const long: BridgeTool = {
        ...weather,
        description: `Fetches the weather for a place and ${"explains it at length ".repeat(12)}`,
        inputSchema: {
          type: "object",
          properties: { city: { type: "string", description: "The city, ".repeat(30) } },
          required: ["city"],
        },
      };
      for (const page of [renderToolList("remote", [long, echo]), renderServerHelp(remote, "remote", [long]), renderToolHelp("remote", long)]) {
        for (const line of page.split("\n")) expect({ line, width: line.length <= 80 }).toEqual({ line, width: true });
      }
      expect(renderToolHelp("remote", long)).toContain("explains it at length");
    } finally {
      process.env.COLUMNS = "200";
    }
  });
});

describe("renderToolList", () => {
  test("one line per tool with a short description", () => {
    expect(renderToolList("everything", [echo, weather, env])).toBe(
      [
        "Tools of everything (3):",
        "  echo                    Echoes back the input string",
        "  get-structured-content  Returns structured content along with an output schema for client data validation",
        "  get-env                 Returns all environment variables",
        "",
        "A tool's parameters: signet mcp everything <tool> --help",
      ].join("\n"),
    );
  });
  test("long descriptions are cut to one line", () => {
    const long: BridgeTool = { ...echo, description: `${"word ".repeat(40)}\nsecond line` };
    const line = renderToolList("s", [long]).split("\n")[1] ?? "";
    expect(line).toBe(`  echo  ${"word ".repeat(20).slice(0, 99)}…`);
  });
  test("a server without tools says so", () => {
    expect(renderToolList("empty", [])).toBe("empty lists no tools.");
  });
});

describe("renderServerHelp", () => {
  test("metadata, usage, and each tool with its parameters", () => {
    expect(renderServerHelp(remote, "remote", [weather, env])).toBe(
      [
        "remote",
        "  status  disabled",
        "  url     https://example.com/mcp",
        "",
        "Usage: signet mcp remote <tool> [--param k=v ...]",
        "       signet mcp remote <tool> --help",
        "",
        "Tools (2):",
        "  get-structured-content: Returns structured content along with an output schema for client data validation",
        '    location  "New York" | "Chicago" | "Los Angeles"  required  Choose city',
        "  get-env: Returns all environment variables",
        "    (no parameters)",
      ].join("\n"),
    );
  });
  test("a described stdio server shows its command; without the server record only the name heads the page", () => {
    expect(renderServerHelp(everything, "everything", []).split("\n").slice(0, 4)).toEqual([
      "everything: Reference server",
      "with every feature",
      "  status   enabled",
      "  command  node server-everything/dist/index.js stdio --title 'My Server'",
    ]);
    expect(renderServerHelp(undefined, "ghost", [echo])).toBe(
      [
        "ghost",
        "",
        "Usage: signet mcp ghost <tool> [--param k=v ...]",
        "       signet mcp ghost <tool> --help",
        "",
        "Tools (1):",
        "  echo: Echoes back the input string",
        "    message  string  required  Message to echo",
      ].join("\n"),
    );
  });
});

describe("renderToolHelp", () => {
  test("usage, description, parameters, how to pass values and an example that needs quoting", () => {
    expect(renderToolHelp("everything", weather)).toBe(
      [
        "Usage: signet mcp everything get-structured-content [--param k=v ...]",
        "       signet mcp everything get-structured-content --json '{...}' | --json -",
        "",
        "Get Structured Content Tool: Returns structured content along with an output schema for client data validation",
        "",
        "Parameters:",
        '  location  "New York" | "Chicago" | "Los Angeles"  required  Choose city',
        "",
        "Passing values:",
        "  --param k=v     one parameter, typed from the tool's schema:",
        '                  - text is passed as written, even when it looks like a number (007 stays "007"); `k=` is an empty string',
        "  --json '{...}'  all arguments as one JSON object, sent as given",
        "  --json -        the same, read from stdin",
        "",
        "Example:",
        "  signet mcp everything get-structured-content --param 'location=New York'",
      ].join("\n"),
    );
  });
  test("defaults, array item types, optional marks and the rules for the kinds of value used", () => {
    const search: BridgeTool = {
      name: "search",
      inputSchema: {
        type: "object",
        properties: {
          tags: { type: "array", items: { type: "string" }, description: "Tags to match" },
          limit: { type: "integer", default: 10 },
          exact: { type: "boolean", description: "Exact match" },
        },
      },
    };
    const text = renderToolHelp("s", search);
    expect(text).toContain(
      [
        "Parameters:",
        "  tags   array of string  optional  Tags to match",
        "  limit  integer          optional  (default: 10)",
        "  exact  boolean          optional  Exact match",
      ].join("\n"),
    );
    expect(text).toContain(
      [
        "  --param k=v     one parameter, typed from the tool's schema:",
        "                  - numbers are parsed (1, -2.5, 1e3); integer parameters refuse fractions",
        "                  - booleans: true/false, yes/no, on/off or 1/0 (any case)",
        "                  - arrays: repeat the parameter, one item each (--param k=a --param k=b), or give one JSON array (k='[\"a\",\"b\"]')",
      ].join("\n"),
    );
    // No parameter is required, so the example teaches the form with the first one.
    expect(text.endsWith("Example:\n  signet mcp s search --param 'tags=[\"text\"]'")).toBe(true);
  });
  test("a tool without parameters", () => {
    const text = renderToolHelp("everything", env);
    expect(text).toContain("Parameters: none\n");
    expect(text).toContain("  --param k=v     one parameter, typed from the tool's schema\n");
    expect(text.endsWith("Example:\n  signet mcp everything get-env")).toBe(true);
  });
});

// A 1x1 PNG (70 bytes); server-everything's get-tiny-image answers the same shape with its logo.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("renderCallResult", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function saveDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "bridge-render-test-"));
    made.push(dir);
    return dir;
  }

  test("text blocks read as text", () => {
    expect(renderCallResult({ content: [{ type: "text", text: "Echo: hi" }] })).toEqual({ text: "Echo: hi", saved: [] });
  });

  test("images are decoded into the directory given, with their path, type and size", () => {
    const dir = saveDir();
    const result: CallToolResult = {
      content: [
        { type: "text", text: "Here's the image you requested:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "text", text: "The image above is the MCP logo." },
      ],
    };
    const out = renderCallResult(result, { saveDir: dir });
    const path = join(dir, "image-1.png");
    expect(out).toEqual({
      text: `Here's the image you requested:\nimage saved: ${path} (image/png, 70 bytes)\nThe image above is the MCP logo.`,
      saved: [path],
    });
    expect(readFileSync(path).equals(Buffer.from(PNG, "base64"))).toBe(true);
    // Saving into the same directory again keeps the first file.
    expect(renderCallResult(result, { saveDir: dir }).saved).toEqual([join(dir, "image-2.png")]);
  });

  test("a name already taken, by a file or a symlink (dangling or not), is never written through: the next number is used", () => {
    const dir = saveDir();
    const outside = saveDir();
    const target = join(outside, "planted.png");
    symlinkSync(target, join(dir, "image-1.png"));
    writeFileSync(join(outside, "existing"), "mine");
    symlinkSync(join(outside, "existing"), join(dir, "image-2.png"));
    writeFileSync(join(dir, "image-3.png"), "earlier");
    const out = renderCallResult({ content: [{ type: "image", data: PNG, mimeType: "image/png" }] }, { saveDir: dir });
    expect(out.saved).toEqual([join(dir, "image-4.png")]);
    expect(existsSync(target)).toBe(false);
    expect(readlinkSync(join(dir, "image-1.png"))).toBe(target);
    expect(readFileSync(join(outside, "existing"), "utf8")).toBe("mine");
    expect(readFileSync(join(dir, "image-3.png"), "utf8")).toBe("earlier");
    expect(lstatSync(join(dir, "image-4.png")).isFile()).toBe(true);
  });

  test("without a directory, files go to a fresh signet-mcp-* directory under the system temp dir", () => {
    const out = renderCallResult({ content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }, { type: "image", data: PNG, mimeType: "image/jpeg" }] });
    const dir = dirname(out.saved[0] ?? "");
    made.push(dir);
    expect(dirname(dir)).toBe(tmpdir());
    expect(basename(dir)).toStartWith("signet-mcp-");
    expect(out.saved).toEqual([join(dir, "audio-1.wav"), join(dir, "image-1.jpg")]);
    expect(out.text).toBe(`audio saved: ${join(dir, "audio-1.wav")} (audio/wav, 4 bytes)\nimage saved: ${join(dir, "image-1.jpg")} (image/jpeg, 70 bytes)`);
    expect(existsSync(join(dir, "audio-1.wav"))).toBe(true);
  });

  test("resource links by URI; embedded text resources with their text; blobs saved", () => {
    const dir = saveDir();
    const out = renderCallResult(
      {
        content: [
          { type: "resource_link", name: "Blob Resource 1", uri: "demo://resource/dynamic/blob/1", description: "Resource 1: plaintext resource", mimeType: "text/plain" },
          { type: "resource", resource: { uri: "demo://resource/dynamic/text/1", mimeType: "text/plain", text: "Resource 1: This is a plaintext resource" } },
          { type: "resource", resource: { uri: "demo://resource/dynamic/blob/1", mimeType: "application/gzip", blob: "H4sI" } },
        ],
      },
      { saveDir: dir },
    );
    expect(out.text).toBe(
      [
        "resource link: demo://resource/dynamic/blob/1 (Blob Resource 1, text/plain) Resource 1: plaintext resource",
        "resource: demo://resource/dynamic/text/1 (text/plain)",
        "Resource 1: This is a plaintext resource",
        `resource saved: ${join(dir, "resource-1.gz")} (application/gzip, 3 bytes) from demo://resource/dynamic/blob/1`,
      ].join("\n"),
    );
    expect(out.saved).toEqual([join(dir, "resource-1.gz")]);
  });

  test("a flat structured object is key/value rows and replaces its JSON copy in the text", () => {
    const out = renderCallResult({
      content: [{ type: "text", text: '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}' }],
      structuredContent: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
    });
    expect(out.text).toBe("temperature  36\nconditions   Light rain / drizzle\nhumidity     82");
  });

  test("lists of flat objects are aligned columns, under the scalars beside them", () => {
    const out = renderCallResult({
      content: [{ type: "text", text: "2 results" }],
      structuredContent: {
        total: 2,
        tags: ["a", "b"],
        results: [
          { id: 1, name: "alpha", score: 0.5 },
          { id: 22, name: "b", ok: true },
        ],
      },
    });
    expect(out.text).toBe(["2 results", "", "total  2", "tags   a, b", "", "results:", "  id  name   score  ok", "  1   alpha  0.5", "  22  b             true"].join("\n"));
  });

  test("structure too deep for a table is pretty JSON", () => {
    const out = renderCallResult({ content: [], structuredContent: { a: { b: 1 } } });
    expect(out.text).toBe('{\n  "a": {\n    "b": 1\n  }\n}');
  });

  test("errors are prefixed clearly; an empty result says so", () => {
    const failed: CallToolResult = {
      content: [{ type: "text", text: "MCP error -32602: Input validation error: Invalid arguments for tool get-sum" }],
      isError: true,
    };
    expect(renderCallResult(failed).text).toBe("error: MCP error -32602: Input validation error: Invalid arguments for tool get-sum");
    expect(renderCallResult({ content: [], isError: true }).text).toBe("error: the tool failed without a message");
    expect(renderCallResult({ content: [] }).text).toBe("(no content)");
  });
});
