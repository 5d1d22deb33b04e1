// Document sources through the real daemon (docs/api.md#sources): ingesting a directory of Markdown,
// text, code and a PDF with the skips; chunks and line ranges as stored; re-ingesting only what
// changed; rm and sync; search, recall with sourceOnly, and no mixing with memories; bad input;
// forged callers; progress streaming; the MCP tool through the SDK's Client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ApiError } from "../../src/client/client";
import type { SourceAddResponse, SourceSearchResponse } from "../../src/contracts/sources";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { call } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";
import { tinyPdf } from "../helpers/pdf";

let td: TestDaemon;
let root: string;

const README = [
  "# Quokka handbook", // 1
  "",
  "Quokkas live on Rottnest Island and smile for photographs of every visitor who passes by the ferry terminal at dawn.", // 3
  "",
  "## Feeding", // 5
  "",
  "Quokkas eat leaves, grasses and succulents; visitors must never feed them bread because it makes them very sick.", // 7
  "Rangers fine anyone who does so and remind tourists at the jetty, the bakery and the bicycle hire shop every single day.", // 8
  "",
].join("\n");

const CODE = [
  'import { join } from "node:path";', // 1
  "",
  "/** Computes the wombat burrow depth from soil density, in centimetres, for the survey report. */", // 3
  "export function burrowDepth(density: number): number {", // 4
  "  const base = density * 12.5 + 40; // measured in the 2019 field season across twelve sites", // 5
  "  return Math.round(base / 2.54);", // 6
  "}", // 7
  "",
  "export class BurrowSurvey {", // 9
  "  readonly sites: string[] = [];", // 10
  "  add(site: string): void {", // 11
  "    this.sites.push(join('sites', site)); // every site is recorded under the sites directory here", // 12
  "  }", // 13
  "}", // 14
].join("\n");

function write(rel: string, content: string | Uint8Array): string {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

async function add(path: string, glob?: string): Promise<SourceAddResponse> {
  return td.client().sources.add(glob === undefined ? { path } : { path, glob });
}

async function search(query: string, extra: Record<string, unknown> = {}): Promise<SourceSearchResponse> {
  return td.client().sources.search({ query, ...extra });
}

beforeAll(async () => {
  td = await startTestDaemon();
  root = tempDir("signet-sources-");
  write("README.md", README);
  write("notes/platypus.txt", "The platypus lays eggs.\n\nIt hunts underwater with its eyes closed, sensing electric fields.\n");
  write("src/burrow.ts", CODE);
  // Pages of over 200 characters, so each stays a chunk of its own (smaller ones are merged).
  const filler = "and the rest of this line is here to give the page enough text to stand as a chunk by itself";
  write(
    "papers/echidna.pdf",
    tinyPdf([
      ["Echidna spines are modified hairs", `made of keratin ${filler}`, `third line ${filler}`],
      [`Second page on monotremes ${filler}`, `and their eggs ${filler}`, `last line ${filler}`],
    ]),
  );
  // Skipped: dependency and VCS directories, binaries, .gitignore'd files.
  write("node_modules/dep/README.md", "# numbat dependency readme");
  write(".git/config", "[core] numbat = true");
  write("logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  write("data.txt", new Uint8Array([0x6e, 0x75, 0x6d, 0, 0x62, 0x61, 0x74]));
  write(".gitignore", "*.log\nbuild/\n!keep.log\n");
  write("debug.log", "numbat debug log");
  write("keep.log", "the bilby keeps this log");
  write("build/out.md", "# numbat build output");
});

afterAll(async () => {
  await td.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("ingesting a directory", () => {
  let first: SourceAddResponse;
  beforeAll(async () => {
    first = await add(root);
  });

  test("takes Markdown, text, code and PDF; skips dependencies, VCS, binaries and .gitignore'd files", async () => {
    expect(first.created).toBe(true);
    expect(first.source).toMatchObject({ path: root, kind: "dir", files: 5 });
    // README.md, platypus.txt, burrow.ts, echidna.pdf, keep.log (re-included by the negation).
    expect(first.parsed).toBe(5);
    expect(first.skipped).toEqual(
      expect.arrayContaining([
        { path: join(root, "logo.png"), reason: "a binary file" },
        { path: join(root, "data.txt"), reason: "a binary file" },
      ]),
    );
    expect((await search("numbat")).results).toEqual([]);
    expect((await search("bilby")).results.map((r) => r.path)).toEqual([join(root, "keep.log")]);
  });

  test("each chunk records its absolute path and line range, and its content is exactly those lines", async () => {
    const chunks = td.daemon.context.stores.sqlite!
      .query<{ path: string; start_line: number; end_line: number; heading: string | null; content: string }, []>(
        "SELECT f.path, c.start_line, c.end_line, c.heading, c.content FROM source_chunks c JOIN source_files f ON f.id = c.file_id ORDER BY f.path, c.ordinal",
      )
      .all();
    const of = (rel: string) => chunks.filter((c) => c.path === join(root, rel)).map((c) => [c.start_line, c.end_line, c.heading]);
    expect(of("README.md")).toEqual([[1, 8, "Quokka handbook"]]);
    expect(of("src/burrow.ts")).toEqual([
      [1, 7, "export function burrowDepth"],
      [9, 14, "export class BurrowSurvey"],
    ]);
    expect(of("papers/echidna.pdf")).toEqual([
      [1, 3, "page 1"],
      [4, 6, "page 2"],
    ]);
    const readme = README.split("\n");
    for (const c of chunks.filter((c) => c.path === join(root, "README.md"))) {
      expect(c.content).toBe(readme.slice(c.start_line - 1, c.end_line).join("\n"));
    }
  });

  test("search answers chunks with path and line range (PDF text included)", async () => {
    const r = await search("wombat burrow depth soil density");
    expect(r.results[0]).toMatchObject({ path: join(root, "src/burrow.ts"), startLine: 1, endLine: 7, matchedBy: "keyword" });
    expect(r.results[0]!.score).toBeGreaterThan(0.5);
    expect(r.meta.embedding).toBe("disabled");
    const pdf = await search("echidna spines keratin");
    expect(pdf.results[0]).toMatchObject({ path: join(root, "papers/echidna.pdf"), startLine: 1, endLine: 3, heading: "page 1" });
    expect(pdf.results[0]!.content).toContain("Echidna spines are modified hairs");
  });

  test("the path filter keeps only files whose path contains it", async () => {
    expect((await search("quokkas platypus", { minScore: 0 })).results.length).toBe(2);
    const only = await search("quokkas platypus", { minScore: 0, path: "notes/" });
    expect(only.results.map((r) => r.path)).toEqual([join(root, "notes/platypus.txt")]);
  });

  test("the glob of a directory source takes only the files it matches", async () => {
    const other = tempDir("signet-glob-");
    writeFileSync(join(other, "a.md"), "# dingo notes\n\nDingoes howl.\n");
    writeFileSync(join(other, "b.txt"), "dingo text file");
    try {
      const r = await add(other, "**/*.md");
      expect([r.scanned, r.parsed, r.source.glob]).toEqual([1, 1, "**/*.md"]);
      expect((await search("dingo")).results.map((x) => x.path)).toEqual([join(other, "a.md")]);
      await td.client().sources.remove(String(r.source.id));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("re-ingesting", () => {
  test("sync parses only files that changed; a touched but identical file is not parsed again", async () => {
    const id = (await td.client().sources.list()).sources.find((s) => s.path === root)!.id;
    const sync = async () => (await td.client().sources.sync({ id })).reports[0]!;
    const same = await sync();
    // data.txt (binary) is looked at again, and skipped again.
    expect([same.scanned, same.parsed, same.unchanged, same.removed]).toEqual([6, 0, 5, 0]);

    // Same content, new mtime: read and hashed, not parsed.
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, "README.md"), later, later);
    expect((await sync()).parsed).toBe(0);

    // Changed content.
    write("notes/platypus.txt", "The platypus lays eggs and carries venomous spurs on its hind legs.\n");
    const changed = await sync();
    expect([changed.parsed, changed.unchanged]).toEqual([1, 4]);
    expect((await search("venomous spurs")).results[0]!.path).toBe(join(root, "notes/platypus.txt"));
    expect((await search("underwater sensing")).results).toEqual([]);

    // A new file, and a deleted one whose chunks go.
    write("notes/kiwi.md", "# Kiwi\n\nThe kiwi is nocturnal.\n");
    rmSync(join(root, "src/burrow.ts"));
    const moved = await sync();
    expect([moved.scanned, moved.parsed, moved.removed]).toEqual([6, 1, 1]);
    expect((await search("wombat burrow")).results).toEqual([]);
    expect((await search("nocturnal kiwi")).results[0]!.path).toBe(join(root, "notes/kiwi.md"));
    const rows = td.daemon.context.stores.sqlite!.query<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.path = ?",
    );
    expect(rows.get(join(root, "src/burrow.ts"))!.n).toBe(0);
  });

  test("adding the same directory again is a sync of it (200, created false)", async () => {
    const res = await call(td, "POST", "/api/sources", { body: { path: root }, headers: td.ownerHeaders });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: false, parsed: 0 });
  });

  test("a streamed add reports progress up to the whole, then the result", async () => {
    const dir = tempDir("signet-progress-");
    for (let i = 0; i < 150; i++) writeFileSync(join(dir, `f${i}.txt`), `galah number ${i}`);
    try {
      const seen: { done: number; total: number }[] = [];
      const r = await td.client().sources.add({ path: dir }, (p) => seen.push(p));
      expect(r.parsed).toBe(150);
      expect(seen[0]).toMatchObject({ done: 0, total: 150 });
      expect(seen.at(-1)).toMatchObject({ done: 150, total: 150 });
      expect(seen.length).toBeGreaterThanOrEqual(3);
      await td.client().sources.remove(String(r.source.id));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("memories and sources never mix", () => {
  beforeAll(async () => {
    await td.client().memory.remember({ content: "Quokkas are my favourite marsupial, photographed at Rottnest" });
  });

  test("memory recall returns the memory, never a chunk", async () => {
    const r = await td.client().memory.recall({ query: "quokkas rottnest" });
    expect(r.results.map((m) => m.content)).toEqual(["Quokkas are my favourite marsupial, photographed at Rottnest"]);
    expect(r.results[0]).not.toHaveProperty("path");
  });

  test("recall with sourceOnly returns chunk rows {id, path, startLine, endLine, content, score}, never the memory", async () => {
    const res = await call(td, "POST", "/api/memory/recall", { body: { query: "quokkas rottnest", sourceOnly: true } });
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const row of res.body.results) {
      expect(row).toMatchObject({ id: expect.any(String), path: expect.any(String), startLine: expect.any(Number), endLine: expect.any(Number) });
      expect(row.content).not.toContain("favourite marsupial");
    }
    expect(res.body.results[0]).toMatchObject({ path: join(root, "README.md"), startLine: 1, endLine: 8 });
    expect(res.body.supporting).toEqual([]);
  });

  test("source search never returns a memory", async () => {
    const r = await search("favourite marsupial photographed");
    expect(r.results.every((x) => !x.content.includes("favourite marsupial"))).toBe(true);
  });

  test("memory filters with sourceOnly are refused, naming them", async () => {
    const res = await call(td, "POST", "/api/memory/recall", { body: { query: "quokkas", sourceOnly: true, tags: ["x"], type: "fact" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: "invalid_input", error: expect.stringMatching(/^type, tags: memory filters do not apply with sourceOnly/) });
  });
});

describe("bad input", () => {
  const post = (body: unknown) => call(td, "POST", "/api/sources", { body, headers: td.ownerHeaders });
  const sourceCount = () => td.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT count(*) AS n FROM sources").get()!.n;

  test.each([
    [{}, /^invalid source add request: path: is required$/],
    [{ path: "relative/dir" }, /^invalid source add request: path: must be an absolute path$/],
    [{ path: "/no/such/signet/path" }, /^path: \/no\/such\/signet\/path does not exist$/],
    [{ path: "/dev/null" }, /^path: \/dev\/null is a character device, not a file or directory$/],
    [{ path: "/tmp", extra: 1 }, /unknown field extra/],
    [{ path: "/tmp", glob: "" }, /glob: cannot be empty/],
  ])("%j is a 400 naming the problem", async (body, message) => {
    const before = sourceCount();
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_input");
    expect(res.body.error).toMatch(message);
    expect(sourceCount()).toBe(before);
  });

  test("a socket is refused as what it is", async () => {
    const dir = tempDir("signet-sock-");
    const path = join(dir, "s.sock");
    const server = Bun.listen({ unix: path, socket: { data() {} } });
    try {
      const res = await post({ path });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe(`path: ${path} is a socket, not a file or directory`);
    } finally {
      server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an unreadable file is refused with the reason", async () => {
    // Root reads any mode-000 file; /proc/1/mem it cannot open (EACCES) even as root.
    let path = "/proc/1/mem";
    if (process.getuid?.() !== 0) {
      path = write("secret.txt", "hidden");
      chmodSync(path, 0o000);
    }
    const res = await post({ path });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`path: cannot read ${path} (EACCES)`);
  });

  test("a glob on a file source, an unknown source id, bad search input", async () => {
    expect((await post({ path: join(root, "README.md"), glob: "*.md" })).body.error).toMatch(/^glob: applies to a directory only/);
    const rm = await call(td, "DELETE", "/api/sources/99999", { headers: td.ownerHeaders });
    expect([rm.status, rm.body.code]).toEqual([404, "not_found"]);
    const bad = await call(td, "DELETE", "/api/sources/abc", { headers: td.ownerHeaders });
    expect([bad.status, bad.body.error]).toEqual([400, "invalid source id: id: must be a source id (a positive integer)"]);
    const sync = await call(td, "POST", "/api/sources/sync", { body: { id: 99999 }, headers: td.ownerHeaders });
    expect(sync.status).toBe(404);
    const empty = await call(td, "POST", "/api/sources/search", { body: { query: " " } });
    expect([empty.status, empty.body.error]).toEqual([400, "invalid source search request: query: cannot be empty"]);
    const big = await call(td, "POST", "/api/sources/search", { body: { query: "x", limit: 1000 } });
    expect(big.body.error).toBe("invalid source search request: limit: must be at most 100");
  });
});

describe("forged callers", () => {
  const port = () => new URL(td.url).port;
  const json = { "content-type": "application/json" };

  test("add, sync and rm need the owner's admin token; search and list do not", async () => {
    const before = (await td.client().sources.list()).sources.length;
    const noToken = await call(td, "POST", "/api/sources", { body: { path: "/etc" } });
    expect([noToken.status, noToken.body.code]).toEqual([401, "unauthorized"]);
    const wrong = await call(td, "POST", "/api/sources", { body: { path: "/etc" }, headers: { authorization: "Bearer nope" } });
    expect([wrong.status, wrong.body.code]).toEqual([403, "forbidden"]);
    expect((await call(td, "POST", "/api/sources/sync", { body: {} })).status).toBe(401);
    expect((await call(td, "DELETE", "/api/sources/1")).status).toBe(401);
    // However the path is spelled.
    expect((await call(td, "POST", "/API/Sources/", { body: { path: "/etc" } })).status).toBe(401);
    expect((await call(td, "POST", "/api/sources/search", { body: { query: "quokka" } })).status).toBe(200);
    expect((await call(td, "GET", "/api/sources")).status).toBe(200);
    expect((await td.client().sources.list()).sources.length).toBe(before);
  });

  test("a wrong Host or a foreign Origin is refused even with the token", async () => {
    const body = JSON.stringify({ path: "/etc" });
    const host = await td.fetch("/api/sources", { method: "POST", headers: { ...json, ...td.ownerHeaders, host: `evil.example:${port()}` }, body });
    expect(host.status).toBe(403);
    const origin = await td.fetch("/api/sources", { method: "POST", headers: { ...json, ...td.ownerHeaders, origin: "http://evil.example" }, body });
    expect(origin.status).toBe(403);
    const search = await td.fetch("/api/sources/search", {
      method: "POST",
      headers: { ...json, origin: "http://evil.example" },
      body: JSON.stringify({ query: "quokka" }),
    });
    expect(search.status).toBe(403);
    expect((await td.client().sources.list()).sources.map((s) => s.path)).not.toContain("/etc");
  });

  test("the client without the owner's data directory cannot add", async () => {
    const { SignetClient } = await import("../../src/client/client");
    const stranger = new SignetClient({ baseUrl: td.url });
    const err = await stranger.sources.add({ path: "/etc" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
  });
});

describe("MCP signet_source_search", () => {
  test("answers compact text with path:start-end and the rows in structuredContent", async () => {
    const client = new Client({ name: "sources-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${td.url}/mcp`)));
    try {
      // Listed first, the SDK client checks each structured answer against the tool's output schema.
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "signet_source_search")?.outputSchema?.type).toBe("object");
      const r = (await client.callTool({ name: "signet_source_search", arguments: { query: "quokkas leaves bread", limit: 3 } })) as any;
      expect(r.isError).toBeFalsy();
      const text: string = r.content[0].text;
      expect(text).toContain(`${join(root, "README.md")}:1-8`);
      expect(text).toMatch(/^1 source chunk for "quokkas leaves bread":/);
      expect(r.structuredContent.results[0]).toMatchObject({ path: join(root, "README.md"), startLine: 1, endLine: 8 });
      const none = (await client.callTool({ name: "signet_source_search", arguments: { query: "zzzyzx" } })) as any;
      expect(none.content[0].text).toMatch(/^No source chunk matches "zzzyzx"/);
      const filtered = (await client.callTool({ name: "signet_source_search", arguments: { query: "platypus", path: "README" } })) as any;
      expect(filtered.structuredContent.results).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("rm", () => {
  test("removes the source with its chunks; the files stay on disk", async () => {
    const { sources } = await td.client().sources.list();
    const id = sources.find((s) => s.path === root)!.id;
    const r = await td.client().sources.remove(String(id));
    expect(r.removed).toMatchObject({ id, path: root });
    expect((await td.client().sources.list()).sources.find((s) => s.path === root)).toBeUndefined();
    expect((await search("quokkas", { minScore: 0 })).results).toEqual([]);
    const left = td.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT (SELECT count(*) FROM source_chunks) + (SELECT count(*) FROM source_files) AS n").get()!;
    expect(left.n).toBe(0);
    expect(await Bun.file(join(root, "README.md")).exists()).toBe(true);
  });
});

describe("embedding in the background", () => {
  // A local stand-in for an embedding service (test/helpers/fake-embedder.ts): "feline" and "cat"
  // share a vector slot there, so a vector match can be told from a keyword one.
  test("chunks are embedded after they are searchable, and search becomes hybrid", async () => {
    const fake = startFakeEmbedder();
    const d = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
    const dir = tempDir("signet-embed-");
    try {
      writeFileSync(join(dir, "pets.md"), "# Pets\n\nThe cat sleeps on the warm windowsill all afternoon.\n");
      writeFileSync(join(dir, "garden.md"), "# Garden\n\nTomatoes need sun and water every morning.\n");
      const added = await d.client().sources.add({ path: dir });
      expect(added.chunks).toBe(2);
      expect(await eventually(async () => (await d.client().sources.list()).sources[0]!.embedded === 2)).toBe(true);
      // One word against a sentence is a middling cosine: the minimum would cut it, so it is lowered.
      const r = await d.client().sources.search({ query: "feline", minScore: 0 });
      expect(r.meta.embedding).toBe("ok");
      expect(r.results[0]).toMatchObject({ path: join(dir, "pets.md"), matchedBy: "vector" });
      const both = await d.client().sources.search({ query: "cat windowsill" });
      expect(both.results[0]).toMatchObject({ path: join(dir, "pets.md"), matchedBy: "hybrid" });
      // A changed file's new chunk is embedded in its turn.
      writeFileSync(join(dir, "garden.md"), "# Garden\n\nThe kitten digs among the tomatoes.\n");
      await d.client().sources.sync({});
      expect(await eventually(async () => (await d.client().sources.list()).sources[0]!.embedded === 2)).toBe(true);
      expect(fake.embedded.some((t) => t.includes("kitten digs"))).toBe(true);
    } finally {
      await d.stop();
      await fake.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a source just added is found by its words while its chunks wait for vectors; hybrid once they have them", async () => {
    const fake = startFakeEmbedder();
    const d = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
    const old = tempDir("signet-embedded-");
    const fresh = tempDir("signet-fresh-");
    try {
      // An embedded source whose chunk is close to the query only by meaning ("cat" shares "feline"'s
      // slot in the fake model), and weakly: a vector-only candidate of little relevance.
      writeFileSync(join(old, "pets.md"), "# Pets\n\nThe cat naps in the sun.\n");
      await d.client().sources.add({ path: old });
      expect(await eventually(async () => (await d.client().sources.list()).sources[0]!.embedded === 1)).toBe(true);
      // The new source's chunks get no vector until the provider answers for them.
      fake.stall = "Marsupial";
      const filler = "It was seen near the creek by the survey team on a cold and windy morning in late autumn last year.";
      writeFileSync(join(fresh, "short.md"), "# Marsupial notes\n\nQuoll quoll quoll: the feline quoll.\n");
      writeFileSync(join(fresh, "long.md"), `# Marsupial field log\n\nA quoll, feline in its habits. ${filler} ${filler} ${filler}\n`);
      const added = await d.client().sources.add({ path: fresh });
      expect(added.chunks).toBe(2);
      const query = { query: "feline quoll" };
      const waiting = await d.client().sources.search(query);
      expect((await d.client().sources.list()).sources[1]!.embedded).toBe(0);
      expect(waiting.results.map((r) => r.path)).toEqual([join(fresh, "short.md"), join(fresh, "long.md")]);
      expect(waiting.meta.method).toBe("keyword");
      expect(waiting.results.every((r) => r.matchedBy === "keyword")).toBe(true);
      fake.stall = undefined;
      expect(await eventually(async () => (await d.client().sources.list()).sources[1]!.embedded === 2)).toBe(true);
      const embedded = await d.client().sources.search(query);
      expect(embedded.meta.method).toBe("hybrid");
      expect(embedded.results[0]).toMatchObject({ path: join(fresh, "short.md"), matchedBy: "hybrid" });
    } finally {
      fake.stall = undefined;
      await d.stop();
      await fake.stop();
      rmSync(old, { recursive: true, force: true });
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe("ties", () => {
  test("chunks ranked alike come back in path order, the same after one of them is parsed again", async () => {
    const dir = tempDir("signet-ties-");
    try {
      const text = "# Quoll\n\nThe quoll hunts at night along the creek.\n";
      writeFileSync(join(dir, "a.md"), text);
      writeFileSync(join(dir, "b.md"), text);
      writeFileSync(join(dir, "c.md"), text);
      await td.client().sources.add({ path: dir });
      const order = async () => (await search("quoll hunts", { path: dir })).results.map((r) => r.path);
      const expected = ["a.md", "b.md", "c.md"].map((f) => join(dir, f));
      expect(await order()).toEqual(expected);
      // a.md changes (a trailing blank line) and is parsed again: its chunk, the same text, is stored anew.
      writeFileSync(join(dir, "a.md"), `${text}\n`);
      const synced = await td.client().sources.sync({});
      expect(synced.reports.reduce((n, r) => n + r.parsed, 0)).toBe(1);
      expect(await order()).toEqual(expected);
      expect(await order()).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a stop during an add", () => {
  test("ends the add after the file it reads: the request answers 503, and the stop does not wait for the rest", async () => {
    const d = await startTestDaemon();
    const dir = tempDir("signet-stop-add-");
    try {
      const many = 4000;
      for (let i = 0; i < many; i++) writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe dunnart number ${i} forages at dusk along the creek.\n`);
      // Handled at once: the add fails while the stop is awaited.
      const adding = d.client().sources.add({ path: dir }).then(
        (r) => r,
        (e: unknown) => e,
      );
      // Under way: some files are stored, far from all.
      const db = d.daemon.context.stores.sqlite!;
      const files = () => (db.query("SELECT COUNT(*) AS n FROM source_files").get() as { n: number }).n;
      expect(await eventually(() => files() > 0, 10_000)).toBe(true);
      await d.stop();
      // The add answered before reading every file, saying it did not finish.
      expect(await adding).toMatchObject({ status: 503, code: "unavailable" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
