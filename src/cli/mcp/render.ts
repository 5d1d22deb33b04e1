// Readable renderings of the MCP bridge (`signet mcp ... --pretty`, or on a terminal): servers,
// tools, help pages and call results. Plain text, so it reads the same in a pipe to `less`.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { UnusedResponse } from "../../contracts/analytics";
import type { BridgeTool, CallUpdate, InstalledServer, Transport } from "../../contracts/bridge";
import { parameters, VALUE_RULES, type ParamInfo, type ValueKind } from "../../contracts/bridge-params";
import { hanging, helpWidth } from "../output";
import { terminalText } from "../terminal-text";

/**
 * Rows padded into aligned columns; the last column is never padded. Cells are made safe
 * (terminal-text.ts) before they are measured. With `width` (help pages), a last cell that would
 * run past it wraps under its own column, or under the row when that column starts too far right.
 */
function columns(rows: string[][], indent = "  ", width?: number): string[] {
  const safe = rows.map((row) => row.map((cell) => terminalText(cell, { oneLine: true })));
  const widths: number[] = [];
  for (const row of safe) row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return safe.map((row) => {
    const line = (indent + row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ")).trimEnd();
    if (width === undefined || line.length <= width || row.length < 2) return line;
    const head = indent + row.slice(0, -1).map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ") + "  ";
    const last = row.at(-1)!;
    if (head.length <= width * 0.6) return hanging(head, last, width);
    return `${head.trimEnd()}\n${hanging(`${indent}    `, last, width)}`;
  });
}

/** A server's or tool's own text, safe and wrapped to `width`, its line breaks kept. */
function paragraphs(text: string, width: number): string[] {
  return terminalText(text)
    .split("\n")
    .map((line) => hanging("", line, width));
}

function oneLine(text: string | null | undefined, max = 100): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A word as a POSIX shell reads it back, quoted only when it must be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function transportSummary(t: Transport): string {
  return t.type === "stdio" ? [t.command, ...t.args].map(shellWord).join(" ") : t.url;
}

/** Listings may say whether a server's process (or connection) is live: `ListedServer`. */
export function renderServerList(servers: Array<InstalledServer & { running?: boolean }>): string {
  if (servers.length === 0) {
    return "No MCP servers installed. Add one with `signet mcp add <name> -- <command> [args]` or `signet mcp add <name> --url <url>`.";
  }
  const rows = servers.map((s) => [s.name, [s.enabled ? "enabled" : "disabled", s.running ? "running" : ""].filter(Boolean).join(", "), s.transport.type, transportSummary(s.transport), oneLine(s.description, 60)]);
  return columns([["NAME", "STATUS", "TRANSPORT", "COMMAND / URL", "DESCRIPTION"], ...rows], "").join("\n");
}

/**
 * Hints under `signet mcp list` for servers with tools not called in `days` (GET /api/mcp/unused with
 * start=false: only tool lists the daemon already holds, so listing never starts a server).
 */
export function renderUnusedHints(unused: UnusedResponse): string {
  const lines = unused.servers
    .filter((s) => s.status === "listed" && s.unused.length > 0)
    .map((s) => {
      const names = s.unused.map((t) => t.tool);
      const shown = names.length > 5 ? `${names.slice(0, 5).join(", ")}, …` : names.join(", ");
      return `hint: ${s.server} has ${names.length} of ${s.tools} tools with no call in ${unused.days} days (${shown})`;
    });
  return lines.join("\n");
}

export function renderToolList(serverName: string, tools: BridgeTool[]): string {
  if (tools.length === 0) return `${serverName} lists no tools.`;
  return [
    `Tools of ${serverName} (${tools.length}):`,
    ...columns(tools.map((t) => [t.name, oneLine(t.description)]), "  ", helpWidth()),
    "",
    `A tool's parameters: signet mcp ${serverName} <tool> --help`,
  ].join("\n");
}

function paramRows(params: ParamInfo[], indent: string, width: number): string[] {
  return columns(
    params.map((p) => {
      const description = oneLine(typeof p.schema.description === "string" ? p.schema.description : "", 200);
      const defaultNote = "default" in p.schema ? `(default: ${JSON.stringify(p.schema.default)})` : "";
      return [p.name, p.type, p.required ? "required" : "optional", [description, defaultNote].filter(Boolean).join(" ")];
    }),
    indent,
    width,
  );
}

export function renderServerHelp(server: InstalledServer | undefined, serverName: string, tools: BridgeTool[]): string {
  const width = helpWidth();
  const lines: string[] = server?.description ? paragraphs(`${serverName}: ${server.description}`, width) : [serverName];
  if (server) {
    lines.push(...columns([["status", server.enabled ? "enabled" : "disabled"], [server.transport.type === "stdio" ? "command" : "url", transportSummary(server.transport)]], "  ", width));
  }
  lines.push("", `Usage: signet mcp ${serverName} <tool> [--param k=v ...]`, `       signet mcp ${serverName} <tool> --help`, "");
  lines.push(tools.length === 0 ? "No tools." : `Tools (${tools.length}):`);
  for (const tool of tools) {
    const params = parameters(tool);
    lines.push(tool.description ? hanging(`  ${tool.name}: `, terminalText(oneLine(tool.description), { oneLine: true }), width) : `  ${tool.name}`);
    lines.push(...(params.length > 0 ? paramRows(params, "    ", width) : ["    (no parameters)"]));
  }
  return lines.join("\n");
}

function exampleLine(serverName: string, tool: BridgeTool, params: ParamInfo[]): string {
  // Required parameters make a call that works; a tool with none shows its first to teach the form.
  const shown = params.some((p) => p.required) ? params.filter((p) => p.required) : params.slice(0, 1);
  const args = shown.map((p) => `--param ${shellWord(`${p.name}=${p.example}`)}`);
  return ["signet mcp", serverName, tool.name, ...args].join(" ");
}

export function renderToolHelp(serverName: string, tool: BridgeTool): string {
  const width = helpWidth();
  const params = parameters(tool);
  const kinds = new Set(params.flatMap((p) => p.admits));
  const rules = (Object.keys(VALUE_RULES) as ValueKind[]).filter((k) => kinds.has(k)).map((k) => ["", `- ${VALUE_RULES[k]}`]);
  const heading = [tool.title, tool.description].filter(Boolean).join(": ");
  return [
    `Usage: signet mcp ${serverName} ${tool.name} [--param k=v ...]`,
    `       signet mcp ${serverName} ${tool.name} --json '{...}' | --json -`,
    ...(heading ? ["", ...paragraphs(heading, width)] : []),
    "",
    ...(params.length > 0 ? ["Parameters:", ...paramRows(params, "  ", width)] : ["Parameters: none"]),
    "",
    "Passing values:",
    ...columns([
      ["--param k=v", `one parameter, typed from the tool's schema${rules.length > 0 ? ":" : ""}`],
      ...rules,
      ["--json '{...}'", "all arguments as one JSON object, sent as given"],
      ["--json -", "the same, read from stdin"],
    ], "  ", width),
    "",
    "Example:",
    `  ${exampleLine(serverName, tool, params)}`,
  ].join("\n");
}

const EXTENSIONS = new Map([
  ["image/jpeg", "jpg"],
  ["image/svg+xml", "svg"],
  ["audio/mpeg", "mp3"],
  ["audio/x-wav", "wav"],
  ["text/plain", "txt"],
  ["application/octet-stream", "bin"],
  ["application/gzip", "gz"],
]);

function extensionOf(mimeType: string | undefined): string {
  const mime = (mimeType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return EXTENSIONS.get(mime) ?? /^[a-z]+\/([a-z0-9]+)$/.exec(mime)?.[1] ?? "bin";
}

/** Writes decoded blocks into one directory per rendering: the one asked for, or a fresh temporary one. */
function fileSaver(saveDir: string | undefined) {
  let dir = saveDir;
  const saved: string[] = [];
  /**
   * `image-1.png`, `image-2.png`, ...: the first free number, so a directory given again keeps
   * earlier files. Each file is created exclusively ("wx": O_CREAT | O_EXCL), which never follows
   * a symlink, dangling or not, planted at the name: a taken name, whatever it is, moves on to the next.
   */
  const save = (kind: string, mimeType: string | undefined, base64: string): string => {
    // node:os only when a block is saved: loading it cost every bridge call about a millisecond.
    if (dir === undefined) dir = mkdtempSync(join((require("node:os") as typeof import("node:os")).tmpdir(), "signet-mcp-"));
    else mkdirSync(dir, { recursive: true });
    const bytes = Buffer.from(base64, "base64");
    let path = "";
    for (let n = 1; path === ""; n++) {
      const candidate = join(dir, `${kind}-${n}.${extensionOf(mimeType)}`);
      try {
        writeFileSync(candidate, bytes, { flag: "wx" });
        path = candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    saved.push(path);
    return `${path} (${mimeType ?? "unknown type"}, ${bytes.length} bytes)`;
  };
  return { save, saved };
}

function renderBlock(block: ContentBlock, save: ReturnType<typeof fileSaver>["save"]): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `${block.type} saved: ${save(block.type, block.mimeType, block.data)}`;
    case "resource_link": {
      const about = [block.name, block.mimeType].filter(Boolean).join(", ");
      return `resource link: ${block.uri} (${about})${block.description ? ` ${block.description}` : ""}`;
    }
    case "resource": {
      const r = block.resource;
      if ("blob" in r) return `resource saved: ${save("resource", r.mimeType, r.blob)} from ${r.uri}`;
      return `resource: ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}\n${r.text}`;
    }
    default:
      return JSON.stringify(block, null, 2);
  }
}

type Scalar = string | number | boolean | null;

function isScalar(v: unknown): v is Scalar {
  return v === null || ["string", "number", "boolean"].includes(typeof v);
}

function isFlatObject(v: unknown): v is Record<string, Scalar> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isScalar);
}

function isTable(v: unknown): v is Array<Record<string, Scalar>> {
  return Array.isArray(v) && v.length > 0 && v.every(isFlatObject);
}

function cell(v: Scalar | undefined): string {
  return v === undefined ? "" : typeof v === "string" ? oneLine(v, 200) : String(v);
}

function table(rows: Array<Record<string, Scalar>>, indent: string): string[] {
  const headers = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return columns([headers, ...rows.map((r) => headers.map((h) => cell(r[h])))], indent);
}

/**
 * Structured content as a table where it fits: rows of flat objects as columns; an object of
 * scalars (and lists of scalars) as key/value rows, with any list of flat objects as its own table
 * below. Anything deeper reads best as JSON.
 */
function renderStructured(value: unknown): string {
  if (isTable(value)) return table(value, "").join("\n");
  if (typeof value !== "object" || value === null || Array.isArray(value)) return JSON.stringify(value, null, 2);
  const entries = Object.entries(value);
  const isList = (v: unknown): v is Scalar[] => Array.isArray(v) && v.every(isScalar);
  if (!entries.every(([, v]) => isScalar(v) || isList(v) || isTable(v))) return JSON.stringify(value, null, 2);
  const pairs = entries.filter(([, v]) => !isTable(v)).map(([k, v]) => [k, isList(v) ? v.map(cell).join(", ") || "(none)" : cell(v as Scalar)]);
  const tables = entries.filter(([, v]) => isTable(v)).map(([k, v]) => [`${k}:`, ...table(v as Array<Record<string, Scalar>>, "  ")]);
  return [...(pairs.length > 0 ? [columns(pairs, "")] : []), ...tables].map((lines) => lines.join("\n")).join("\n\n");
}

/** Servers should repeat structured content as JSON text for older clients; the table replaces that copy. */
function repeatsStructured(block: ContentBlock, structured: unknown): boolean {
  if (block.type !== "text" || structured === undefined) return false;
  try {
    return Bun.deepEquals(JSON.parse(block.text), structured);
  } catch {
    return false;
  }
}

/** A call's news as one status line: `tool: 3/5 (60%) message`, or the status of its task. */
export function renderCallUpdate(tool: string, update: CallUpdate): string {
  if ("task" in update) {
    const { status, statusMessage } = update.task;
    return `${tool}: task ${status}${statusMessage ? `: ${statusMessage}` : ""}`;
  }
  const { progress, total, message } = update;
  const amount = total ? `${progress}/${total} (${Math.round(Math.min(1, progress / total) * 100)}%)` : String(progress);
  return `${tool}: ${amount}${message ? ` ${message}` : ""}`;
}

export function renderCallResult(result: CallToolResult, opts: { saveDir?: string } = {}): { text: string; saved: string[] } {
  const { save, saved } = fileSaver(opts.saveDir);
  const blocks = (result.content ?? []).filter((b) => !repeatsStructured(b, result.structuredContent)).map((b) => renderBlock(b, save));
  const structured = result.structuredContent === undefined ? [] : [renderStructured(result.structuredContent)];
  const body = [blocks.join("\n"), ...structured].filter(Boolean).join("\n\n") || (result.isError ? "the tool failed without a message" : "(no content)");
  return { text: result.isError ? `error: ${body}` : body, saved };
}
