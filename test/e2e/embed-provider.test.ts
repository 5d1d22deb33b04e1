// The compiled daemon with an HTTP embedding provider, a local fake standing in for the paid or remote
// APIs (test/helpers/shaped-embedder.ts): a failing provider is logged once and once again when it
// answers, `signet doctor` says why it fails, and neither the status, the log, doctor nor
// embedding_models carries the credentials of embedding.baseUrl; `signet daemon stop` stops the
// daemon gracefully while the provider still holds a request, instead of waiting for its answer.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { daemonFiles, databasePath } from "../../src/config/paths";
import type { EmbedStatusResponse } from "../../src/contracts/embed";
import { json, run, sandbox, startDaemonIn, type Sandbox } from "../helpers/binary";
import { startShapedEmbedder } from "../helpers/shaped-embedder";
import { eventually } from "../helpers/wait";

const fake = startShapedEmbedder(64);
const started: Sandbox[] = [];
afterAll(async () => {
  for (const s of started) await run(["daemon", "stop"], { env: s.env });
  await fake.stop();
});

const SECRETS = ["proxyuser", "S3cretPass", "sk-e2e-key"];

async function daemon(embedding: string): Promise<Sandbox> {
  const s = await sandbox(`embedding:\n${embedding}`);
  started.push(s);
  await startDaemonIn(s);
  return s;
}

const embedStatus = async (s: Sandbox) => (await (await fetch(`http://127.0.0.1:${s.port}/api/embed/status`)).json()) as EmbedStatusResponse;
const logOf = (s: Sandbox) => readFileSync(daemonFiles(s.dataDir).log, "utf8");
const linesWith = (s: Sandbox, text: string) => logOf(s).split("\n").filter((l) => l.includes(text));

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  if (!(await eventually(check, ms))) throw new Error(`never: ${what}`);
}

describe("a failing embedding provider", () => {
  test("is logged once and its recovery once; doctor says why; no credential of embedding.baseUrl shows anywhere", async () => {
    const baseUrl = `${fake.url.replace("http://", "http://proxyuser:S3cretPass@")}/v1`;
    const s = await daemon(`  provider: openai\n  model: bag-3\n  baseUrl: ${baseUrl}\n  apiKey: sk-e2e-key\n`);
    expect((await run(["remember", "My cat loves tuna fish"], { env: s.env })).code).toBe(0);
    await until(async () => {
      const e = await embedStatus(s);
      return e.ok && e.pending === 0 && e.vectors.length === 1;
    }, "the first memory embedded");

    fake.failWith = 503;
    const from = fake.requests.length;
    expect((await run(["remember", "The car needs new tires"], { env: s.env })).code).toBe(0);
    // The first attempt and a retry after the backoff: one failure, logged once.
    await until(() => fake.requests.length - from >= 2, "a retry");
    const status = await embedStatus(s);
    expect(status).toMatchObject({ ok: false, pending: 1 });
    expect(status.error).toContain(`${fake.url}/v1/embeddings answered 503`);

    const doctor = json<{ checks: { area: string; status: string; detail: string; fix?: string }[] }>(await run(["doctor", "--json"], { env: s.env }));
    const embedder = doctor.checks.find((c) => c.area === "embedder")!;
    expect(embedder.status).toBe("problem");
    expect(embedder.detail).toContain(`openai (bag-3) is failing: ${fake.url}/v1/embeddings answered 503`);

    const failing = linesWith(s, "embedding: the openai provider is failing");
    expect(failing).toHaveLength(1);
    expect(failing[0]).toContain("answered 503");

    fake.failWith = undefined;
    await until(async () => (await embedStatus(s)).pending === 0, "the second memory embedded");
    await until(() => linesWith(s, "embedding: the openai provider answers again").length === 1, "the recovery logged");
    expect(linesWith(s, "embedding: the openai provider is failing")).toHaveLength(1);

    const db = new Database(databasePath(s.dataDir), { readonly: true });
    const models = db.query("SELECT model, base_url FROM embedding_models").all();
    db.close();
    expect(models).toEqual([{ model: "bag-3", base_url: fake.url }]);
    for (const text of [JSON.stringify(status), JSON.stringify(doctor), logOf(s)]) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  }, 60_000);
});

describe("signet daemon stop", () => {
  test("stops the daemon gracefully while the provider holds a request: the request is cancelled, nothing stored", async () => {
    fake.hold = (r) => r.texts.some((t) => t.includes("held"));
    try {
      const s = await daemon(`  provider: ollama\n  model: bag\n  baseUrl: ${fake.url}\n`);
      expect((await run(["remember", "a memory held by the provider"], { env: s.env })).code).toBe(0);
      await until(() => fake.open > 0, "the request in flight");
      const stop = await run(["daemon", "stop"], { env: s.env });
      expect(stop.code).toBe(0);
      // A graceful stop logs its end and removes its pid file; one killed after the wait does neither.
      expect(logOf(s).trimEnd().split("\n").at(-1)).toEndWith(" stopped");
      expect(existsSync(daemonFiles(s.dataDir).pid)).toBe(false);
      expect(fake.open).toBe(1);
      const db = new Database(databasePath(s.dataDir), { readonly: true });
      expect(db.query("SELECT count(*) AS n FROM memory_vectors").get()).toEqual({ n: 0 });
      db.close();
    } finally {
      fake.hold = undefined;
    }
  }, 30_000);
});
