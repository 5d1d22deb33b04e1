// How the memory tools answer over MCP (docs/mcp.md#memory-answers): compact text for the model,
// the daemon's whole answer as structuredContent, checked by the SDK client against each tool's
// output schema; the pinned-memory refusal; the size of a list answer per memory.
import { afterAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { useTestDaemon } from "../helpers/memory-api";

const daemon = useTestDaemon();
const clients: Client[] = [];
// /mcp is stateless: closing a client sends nothing, so it may run before or after the daemon stops.
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** An SDK client acting as `agent`; it has listed the tools, so it checks every structured answer against its output schema. */
async function connect(agent: string): Promise<Client> {
  const client = new Client({ name: "mcp-memory-answers", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon().url}/mcp`), { requestInit: { headers: { "x-signet-agent-id": agent } } }));
  await client.listTools();
  clients.push(client);
  return client;
}

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; structured: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  if (result.isError || first?.type !== "text") throw new Error(`${name} failed: ${JSON.stringify(result)}`);
  expect(result.content).toHaveLength(1);
  return { text: first.text, structured: result.structuredContent };
}

const FIFTEEN: [string, string, string][] = [
  ["The project builds with Bun 1.3; run `bun scripts/build.ts` before the e2e tests", "fact", "tooling,build"],
  ["User prefers tabs over spaces in TypeScript files", "preference", "style"],
  ["Decided to keep SQLite in WAL mode; the daemon is the only writer", "decision", "storage"],
  ["CI runs on Debian bookworm with two cores", "fact", "ci,infra"],
  ["Never commit generated files under dist/", "rule", "git"],
  ["The staging database listens on port 5433", "fact", "infra,database"],
  ["User wants commit messages in the imperative mood, under 72 characters", "preference", "git,style"],
  ["Release notes are written in docs/CHANGELOG.md, newest first", "fact", "docs"],
  ["Chose zod for every request contract so routes, MCP tools and the CLI share one schema", "decision", "architecture"],
  ["The flaky test in bridge-processes was a port race; fixed by binding port 0", "learning", "tests"],
  ["User is based in Berlin and works 9 to 17 CET", "fact", "user"],
  ["Prefer small pull requests, one topic each", "preference", "process"],
  ["Dependency upgrades happen on the first Monday of each month", "fact", "process"],
  ["The embedding model is loaded lazily; the first recall may be keyword-only", "learning", "recall"],
  ["Avoid default exports in this codebase", "rule", "style"],
];

describe("the memory tools' answers", () => {
  test("memory_store: a new memory, then the same content again as deduped; signet_save_note likewise", async () => {
    const client = await connect("answers-store");
    const stored = await callOk(client, "memory_store", { content: "The CI runs on Debian bookworm", tags: "ci,infra", type: "fact" });
    expect(stored.structured).toMatchObject({ content: "The CI runs on Debian bookworm", tags: ["ci", "infra"], deduped: false, version: 1 });
    const day = stored.structured.createdAt.slice(0, 10);
    expect(stored.text).toBe(
      `Stored as a new memory:\n[${stored.structured.id} · fact · v1 · created ${day} · by answers-store · tags: ci, infra]\n  The CI runs on Debian bookworm`,
    );
    // The structured answer is the API's own, whole.
    const viaApi = await daemon().client("answers-store").memory.get(stored.structured.id);
    const { history: _history, ...memory } = viaApi;
    expect(stored.structured).toEqual({ ...memory, deduped: false });

    // What a repeat sent differently is named (the answer's dedupe.ignored), and the SDK client
    // accepted that field, which the output schema lists.
    const again = await callOk(client, "memory_store", { content: "the CI runs on Debian bookworm.", tags: "debian" });
    expect(again.structured).toMatchObject({ deduped: true, id: stored.structured.id, dedupe: { ignored: ["tags"] } });
    expect(again.text).toStartWith(
      "Already stored (deduped): the same content was stored before, so nothing new was written. Not applied: tags (the stored memory keeps its own; change them with memory_modify). The existing memory:\n[",
    );
    expect(again.text).toContain(stored.structured.id);
    const same = await callOk(client, "memory_store", { content: "The CI runs on Debian bookworm" });
    expect(same.text).toStartWith("Already stored (deduped): the same content was stored before, so nothing new was written. The existing memory:\n[");

    const note = await callOk(client, "signet_save_note", { content: "Ship on Thursdays", title: "Release day" });
    expect(note.structured).toMatchObject({ type: "note", deduped: false });
    expect(note.text).toBe(`Stored as a new memory:\n[${note.structured.id} · note · v1 · created ${day} · by answers-store]\n  Release day\n  \n  Ship on Thursdays`);
  });

  test("tags: an array of strings or a comma-separated string, as over HTTP, in every memory tool", async () => {
    const client = await connect("answers-tags");
    const stored = await callOk(client, "memory_store", { content: "The docs site deploys from main", tags: ["docs", "deploy"] });
    expect(stored.structured.tags).toEqual(["docs", "deploy"]);
    const note = await callOk(client, "signet_save_note", { content: "Deploys freeze on Fridays", tags: ["deploy", "process"] });
    expect(note.structured.tags).toEqual(["deploy", "process"]);
    const modified = await callOk(client, "memory_modify", { id: stored.structured.id, reason: "retagged", tags: ["docs", "ci"] });
    expect(modified.structured.tags).toEqual(["docs", "ci"]);
    const found = await callOk(client, "memory_search", { query: "deploys", tags: ["deploy", "process"] });
    expect(found.structured.results.map((r: { id: string }) => r.id)).toEqual([note.structured.id]);
    // A bad tag is still refused, naming the problem.
    const bad = (await client.callTool({ name: "memory_store", arguments: { content: "tagged badly", tags: ["a,b"] } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("a tag cannot contain a comma");
  });

  test("memory_get: the whole memory, the fields that are set, and a history summary", async () => {
    const client = await connect("answers-get");
    const { structured: m } = await callOk(client, "memory_store", {
      content: "Deploys go through the staging cluster first",
      tags: "deploy",
      importance: 0.8,
      hints: ["how do we deploy?"],
      transcript: "user: deploys? assistant: staging first",
      structured: { entity: "deploy" },
    });
    await callOk(client, "memory_modify", { id: m.id, reason: "more precise", content: "Deploys go through staging-eu first", tags: "deploy,eu" });
    const got = await callOk(client, "memory_get", { id: m.id });
    expect(got.structured.history).toHaveLength(2);
    expect(got.structured.history[0].content).toBe("Deploys go through the staging cluster first");
    const lines = got.text.split("\n");
    expect(lines[0]).toStartWith(`[${m.id} · fact · v2 · created `);
    expect(lines[0]).toEndWith(" · tags: deploy, eu]");
    expect(lines[1]).toBe("  Deploys go through staging-eu first");
    expect(lines[2]).toBe(
      `importance 0.8 · agent answers-get · source mcp-server · created ${m.createdAt} · updated ${got.structured.updatedAt}`,
    );
    expect(got.text).toContain('hints: ["how do we deploy?"]');
    expect(got.text).toContain("Also stored, in the structured result: transcript (39 characters), structured data.");
    expect(got.text).toContain("History (2 versions, oldest first; earlier contents in the structured result):");
    expect(lines.at(-2)).toBe(`  v1 create ${m.createdAt} by mcp-server`);
    expect(lines.at(-1)).toBe(`  v2 modify ${got.structured.updatedAt} by mcp-server (changed content, tags): more precise`);
    // Nothing of the 24 fields' JSON is printed.
    expect(got.text).not.toContain('"accessCount"');
  });

  test("memory_list: numbered rows, newest first, and where the next page starts", async () => {
    const client = await connect("answers-list");
    const ids: string[] = [];
    for (const content of ["first one", "second one", "third one"]) {
      ids.push((await callOk(client, "memory_store", { content })).structured.id);
      await Bun.sleep(2); // distinct createdAt, so newest first is well defined
    }
    const page = await callOk(client, "memory_list", { limit: 2 });
    expect(page.structured).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    expect(page.structured.memories.map((m: any) => m.id)).toEqual([ids[2], ids[1]]);
    const lines = page.text.split("\n");
    expect(lines[0]).toBe("Memories 1–2, newest first. More: call memory_list with offset 2.");
    expect(lines[1]).toStartWith(`1. [${ids[2]} · fact · v1 · created `);
    expect(lines[2]).toBe("  third one");
    expect(lines[3]).toStartWith(`2. [${ids[1]} `);

    const last = await callOk(client, "memory_list", { limit: 2, offset: 2 });
    expect(last.structured.hasMore).toBe(false);
    expect(last.text.split("\n")[0]).toBe("Memories 3–3, newest first. No more.");
    expect(last.text).toContain(`3. [${ids[0]} `);
    expect((await callOk(client, "memory_list", { offset: 10 })).text).toBe("No memories at offset 10.");
    expect((await callOk(await connect("answers-empty"), "memory_list", {})).text).toBe("No memories.");
  });

  test("memory_modify and memory_forget: the memory after the change; forget says when and why", async () => {
    const client = await connect("answers-write");
    const { structured: m } = await callOk(client, "memory_store", { content: "Use Node 20" });
    const modified = await callOk(client, "memory_modify", { id: m.id, reason: "upgrade", content: "Use Node 22", type: "decision" });
    expect(modified.structured).toMatchObject({ version: 2, content: "Use Node 22", type: "decision" });
    expect(modified.text).toStartWith(`Modified. The memory now:\n[${m.id} · decision · v2 · created `);
    expect(modified.text).toEndWith("]\n  Use Node 22");

    const forgotten = await callOk(client, "memory_forget", { id: m.id, reason: "moved to Bun" });
    expect(forgotten.structured.deletedAt).toBeString();
    expect(forgotten.text.split("\n")[0]).toBe(
      `Forgotten at ${forgotten.structured.deletedAt} (reason: moved to Bun). It no longer appears in searches or lists; an operator can recover it within 30 days (\`signet recover ${m.id}\`).`,
    );
    expect(forgotten.text).toEndWith("\n  Use Node 22");
  });

  test("content is given as stored: newlines indented, control characters kept, long content cut saying so", async () => {
    const client = await connect("answers-content");
    const odd = "line one\nline two\twith a tab, a bell \u0007 and an escape \u001b[31m";
    const { structured: m } = await callOk(client, "memory_store", { content: odd });
    const listed = await callOk(client, "memory_list", {});
    expect(listed.text).toContain("  line one\n  line two\twith a tab, a bell \u0007 and an escape \u001b[31m");

    // 2,000 characters shown in every text but memory_get's; a surrogate pair at the cut is not split.
    const long = `${"x".repeat(1999)}😀${"y".repeat(3000)}`;
    const big = await callOk(client, "memory_store", { content: long });
    expect(big.structured.content).toBe(long);
    expect(big.text).toContain(`\n  ${"x".repeat(1999)}\n  [content cut: 1,999 of 5,001 characters shown; memory_get shows it whole]`);
    const page = await callOk(client, "memory_list", {});
    expect(page.text).toContain("[content cut: 1,999 of 5,001 characters shown; memory_get shows it whole]");
    expect(page.structured.memories[0].content).toBe(long);
    const whole = await callOk(client, "memory_get", { id: big.structured.id });
    expect(whole.text).toContain(`  ${long}\n`);
    expect(whole.text).not.toContain("content cut");
    expect(m.content).toBe(odd);
  });

  test("a pinned memory: memory_forget names memory_modify's pinned, which unpins it; then it is forgotten", async () => {
    const client = await connect("answers-pinned");
    const { structured: m } = await callOk(client, "memory_store", { content: "Keep the on-call rota in PagerDuty", pinned: true });
    const refused = (await client.callTool({ name: "memory_forget", arguments: { id: m.id, reason: "obsolete" } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    const message = (refused.content[0] as { text: string }).text;
    expect(message).toStartWith(`memory_forget failed (pinned): memory ${m.id} is pinned: unpin it first with memory_modify (pinned: false`);
    expect(message).not.toContain("force");

    // The parameter the message names exists and works.
    const { tools } = await client.listTools();
    expect(Object.keys(tools.find((t) => t.name === "memory_modify")!.inputSchema.properties ?? {})).toContain("pinned");
    const unpinned = await callOk(client, "memory_modify", { id: m.id, reason: "the user dropped PagerDuty", pinned: false });
    expect(unpinned.structured).toMatchObject({ pinned: false, version: 2 });
    const forgotten = await callOk(client, "memory_forget", { id: m.id, reason: "obsolete" });
    expect(forgotten.structured.deletedAt).toBeString();
  });
});

test("output schemas let fields the API adds later through, at every level, in every tool", async () => {
  const { tools } = await (await connect("answers-schemas")).listTools();
  /** Paths of the objects in `schema` that refuse other properties. */
  const closed = (schema: unknown, path: string): string[] => {
    if (schema === null || typeof schema !== "object") return [];
    const node = schema as Record<string, unknown>;
    const own = node.type === "object" && node.additionalProperties === false ? [path] : [];
    return [...own, ...Object.entries(node).flatMap(([key, value]) => closed(value, `${path}.${key}`))];
  };
  const withOutput = tools.filter((t) => t.outputSchema !== undefined);
  expect(withOutput.map((t) => t.name)).toEqual(expect.arrayContaining(["memory_store", "memory_get", "memory_list", "memory_search", "secret_exec"]));
  const found = withOutput.flatMap((t) => closed(t.outputSchema, t.name));
  if (found.length > 0) console.error(found.join("\n"));
  expect(found).toEqual([]);
  const schema = (name: string) => tools.find((t) => t.name === name)!.outputSchema as any;
  expect(schema("memory_list").properties.memories.items.additionalProperties).toEqual({});
  // What is listed is still required.
  expect(schema("memory_list").properties.memories.items.required).toContain("version");
});

describe("answer size", () => {
  test("memory_list of 15 memories: characters of text per memory, before (indented JSON) and after", async () => {
    const client = await connect("answers-size");
    for (const [content, type, tags] of FIFTEEN) await callOk(client, "memory_store", { content, type, tags });
    const { text, structured } = await callOk(client, "memory_list", {});
    expect(structured.memories).toHaveLength(15);
    // The whole answer as indented JSON text, which is what a tool without a text rendering would send.
    const before = JSON.stringify(structured, null, 2).length;
    const after = text.length;
    const contents = FIFTEEN.reduce((sum, [content]) => sum + content.length, 0);
    console.log(
      `memory_list, 15 memories: before ${before} characters (${Math.round(before / 15)} per memory), ` +
        `after ${after} (${Math.round(after / 15)} per memory); the contents alone are ${contents} (${Math.round(contents / 15)} per memory)`,
    );
    // Every content is in the text whole; the rest is under 125 characters a memory.
    for (const [content] of FIFTEEN) expect(text).toContain(`  ${content}\n`.trimEnd());
    expect((after - contents) / 15).toBeLessThan(125);
    expect(after).toBeLessThan(before / 2.5);
  });
});
