// The compiled daemon killed with kill -9 right after acknowledging session writes: bypass,
// feedback, transcripts and injection records all survive (docs/api.md#conventions, Durability).
import { expect, test } from "bun:test";
import { requireBinary, sandbox } from "../helpers/binary";

const BIN = requireBinary();

test("bypass, feedback, transcript and injections survive kill -9 of the daemon", async () => {
  const s = await sandbox("embedding:\n  provider: none\n");
  const url = `http://127.0.0.1:${s.port}`;
  const spawnDaemon = () => Bun.spawn([BIN, "daemon", "run"], { env: s.env, stdout: "ignore", stderr: "ignore" });
  const waitHealthy = async () => {
    for (let i = 0; i < 400; i++) {
      try {
        if ((await fetch(`${url}/health`)).ok) return;
      } catch {}
      await Bun.sleep(25);
    }
    throw new Error("daemon did not come up");
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };

  const first = spawnDaemon();
  let memoryId: string;
  try {
    await waitHealthy();
    memoryId = (await post("/api/memory/remember", { content: "the durable kite is red", pinned: true })).body.id;
    const start = await post("/api/hooks/session-start", { sessionKey: "dur-1", harness: "claude-code" });
    expect(start.body.memoryIds).toEqual([memoryId]);
    expect((await post("/api/memory/feedback", { sessionKey: "dur-1", ratings: { [memoryId]: 1 } })).body).toMatchObject({ accepted: 1 });
    expect((await post("/api/hooks/session-end", { sessionKey: "dur-2", harness: "codex", transcript: "user: the albatross flies at noon" })).status).toBe(200);
    expect((await post("/api/sessions/dur-1/bypass", { enabled: true })).body).toEqual({ key: "dur-1", bypassed: true });
  } finally {
    first.kill("SIGKILL");
    await first.exited;
  }

  const second = spawnDaemon();
  try {
    await waitHealthy();
    expect((await post("/api/hooks/user-prompt-submit", { sessionKey: "dur-1", harness: "claude-code", prompt: "kite" })).body).toEqual({ bypassed: true });
    const session = (await (await fetch(`${url}/api/sessions/dur-1`)).json()) as any;
    expect(session.memories).toEqual([{ memoryId, via: "session-start", window: 0, at: expect.any(String), rating: 1 }]);
    const found = await post("/api/sessions/search", { query: "albatross" });
    expect(found.body.hits.map((h: { sessionKey: string }) => h.sessionKey)).toEqual(["dur-2"]);
  } finally {
    second.kill("SIGTERM");
    await second.exited;
  }
});
