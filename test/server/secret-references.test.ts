// Secret references (docs/api.md#references): bw:// and op:// through fake `bw` and `op` CLIs on the
// daemon's PATH (test/helpers/fake-password-managers.ts: the real ones need their services), bare
// names through secrets.provider, a missing CLI, and `secret:NAME` in an installed MCP server's env
// resolved from the store when the server starts, never shown by the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tempDir } from "../helpers/daemon";
import { NODE } from "../helpers/everything";
import { writeFakePasswordManagers } from "../helpers/fake-password-managers";
import { finished, startLoggedDaemon, type LoggedDaemon } from "../helpers/secrets";

const SESSION = "unlocked-session-token-123";
const BW_PASSWORD = "bitwarden-password-value";
const BW_USER = "someone@example.com";
const OP_VALUE = "onepassword-field-value";
const LOCAL_ONLY = "only-in-the-local-store";

let root: string;
let fakes: string;
const PATH = process.env.PATH!;

beforeAll(() => {
  root = tempDir("signet-refs-");
  fakes = join(root, "fakes");
  mkdirSync(fakes);
  const bin = writeFakePasswordManagers(fakes, {
    bwSession: SESSION,
    bw: { github: { password: BW_PASSWORD, username: BW_USER } },
    op: { "Private/Stripe/api key": OP_VALUE },
  });
  // The daemon runs the CLIs from its own PATH.
  process.env.PATH = `${bin}:${PATH}`;
});

afterAll(() => {
  process.env.PATH = PATH;
  rmSync(root, { recursive: true, force: true });
});

const calls = () => (existsSync(join(fakes, "calls")) ? readFileSync(join(fakes, "calls"), "utf8") : "");

async function withDaemon(name: string, yaml: string, body: (d: LoggedDaemon) => Promise<void>) {
  const dir = join(root, name);
  mkdirSync(dir);
  const d = await startLoggedDaemon(dir, yaml);
  try {
    await body(d);
  } finally {
    await d.daemon.stop();
  }
}

async function run(d: LoggedDaemon, command: string, secrets: Record<string, string>) {
  const r = await d.api("POST", "/api/secrets/exec", { command, secrets });
  expect(r.status).toBe(202);
  return finished(d.api, r.body.id);
}

describe("password managers", () => {
  test("bw:// and op:// resolve through the CLIs; values are injected and redacted", () =>
    withDaemon("managers", "", async (d) => {
      // Without an unlocked session nothing runs, not even bw.
      const mark = join(root, "ran-locked");
      const locked = await run(d, `touch ${mark}`, { PW: "bw://github" });
      expect(locked.status).toBe("failed");
      expect(locked.error).toContain("BW_SESSION");
      expect(existsSync(mark)).toBe(false);
      expect(calls()).toBe("");

      expect((await d.api("PUT", "/api/secrets/BW_SESSION", { value: SESSION })).status).toBe(200);
      const job = await run(d, 'printf "%s|%s|%s" "$PW" "$USER_NAME" "$KEY"; printf %s "$PW" | base64', {
        PW: "bw://github",
        USER_NAME: "bw://github/username",
        KEY: "op://Private/Stripe/api key",
      });
      expect(job.status).toBe("completed");
      expect(job.stdout).toBe("[REDACTED]|[REDACTED]|[REDACTED][REDACTED]\n");
      expect(calls()).toContain("bw get password github --nointeraction");
      expect(calls()).toContain("bw get username github --nointeraction");
      expect(calls()).toContain("op read --no-newline op://Private/Stripe/api key");

      // The exact values, checked without printing them: the command compares.
      const compare = await run(d, `[ "$PW" = '${BW_PASSWORD}' ] && [ "$KEY" = '${OP_VALUE}' ] && echo same`, {
        PW: "bw://github",
        KEY: "op://Private/Stripe/api key",
      });
      expect(compare.stdout).toBe("same\n");
    }));

  test("an unknown item is the CLI's own message; nothing runs", () =>
    withDaemon("unknown", "", async (d) => {
      await d.api("PUT", "/api/secrets/BW_SESSION", { value: SESSION });
      const mark = join(root, "ran-unknown");
      const bw = await run(d, `touch ${mark}`, { X: "bw://nope" });
      expect(bw).toMatchObject({ status: "failed" });
      expect(bw.error).toContain("Not found.");
      const op = await run(d, `touch ${mark}`, { X: "op://Private/Nope/field" });
      expect(op.error).toContain("could not read secret");
      expect(existsSync(mark)).toBe(false);
    }));

  test("secrets.provider bitwarden: bare names go to Bitwarden first, then the local store", () =>
    withDaemon("provider", "secrets:\n  provider: bitwarden\n", async (d) => {
      await d.api("PUT", "/api/secrets/BW_SESSION", { value: SESSION });
      await d.api("PUT", "/api/secrets/LOCAL_ONLY", { value: LOCAL_ONLY });
      const job = await run(d, `[ "$A" = '${BW_PASSWORD}' ] && [ "$B" = '${LOCAL_ONLY}' ] && echo both`, { A: "github", B: "LOCAL_ONLY" });
      expect(job.stdout).toBe("both\n");
      expect(calls()).toContain("bw get password LOCAL_ONLY");
      const missing = await run(d, "true", { C: "NOWHERE" });
      expect(missing.error).toContain("Not found.");
    }));

  test("a stored BW_SESSION with a NUL byte fails the job naming it, never quoting it; nothing runs", () =>
    withDaemon("nul-session", "", async (d) => {
      // Set beneath the route, which refuses such a value, as a store from before that holds it.
      d.daemon.context.secrets.store.set("BW_SESSION", `${SESSION}\0TOPSECRET-after-nul`);
      const mark = join(root, "ran-nul-session");
      const job = await run(d, `touch ${mark}`, { PW: "bw://github" });
      expect(job.status).toBe("failed");
      expect(job.error).toContain("nothing was run: PW (bw://github): the secret BW_SESSION contains a NUL byte");
      expect(job.error).not.toContain("TOPSECRET");
      expect(d.lines.filter((l) => l.includes("TOPSECRET"))).toEqual([]);
      expect(existsSync(mark)).toBe(false);
    }));

  test("a CLI that is not installed fails the job with a message saying so", async () => {
    process.env.PATH = PATH;
    try {
      await withDaemon("no-cli", "", async (d) => {
        await d.api("PUT", "/api/secrets/BW_SESSION", { value: SESSION });
        const mark = join(root, "ran-no-cli");
        const bw = await run(d, `touch ${mark}`, { X: "bw://github" });
        expect(bw.error).toContain("the Bitwarden CLI `bw` is not installed or not on the daemon's PATH");
        const op = await run(d, `touch ${mark}`, { X: "op://a/b/c" });
        expect(op.error).toContain("the 1Password CLI `op` is not installed");
        expect(existsSync(mark)).toBe(false);
      });
    } finally {
      process.env.PATH = `${join(fakes, "bin")}:${PATH}`;
    }
  });
});

describe("secret:NAME in installed MCP servers", () => {
  const FAKE_SERVER = resolve(import.meta.dir, "../helpers/fake-mcp-server.mjs");
  const TOKEN = "server-token-from-the-store";

  test("resolved from the store when the server starts; the API shows the reference; a missing name is named", () =>
    withDaemon("bridge", "", async (d) => {
      const seen = join(root, "seen-by-server");
      // The server writes what it was given, then becomes the fake MCP server.
      const transport = {
        type: "stdio",
        command: "/bin/sh",
        args: ["-c", 'printf %s "$TOKEN" > "$1"; exec "$2" "$3"', "sh", seen, NODE, FAKE_SERVER],
        env: { TOKEN: "secret:SERVER_TOKEN" },
      };
      expect((await d.api("POST", "/api/marketplace/servers", { name: "tokened", transport })).status).toBe(201);
      const missing = await d.api("GET", "/api/marketplace/servers/tokened/tools");
      expect(missing.status).toBe(503);
      expect(missing.body.error).toContain("secret:SERVER_TOKEN cannot be resolved: no secret named SERVER_TOKEN");
      expect(existsSync(seen)).toBe(false);

      await d.api("PUT", "/api/secrets/SERVER_TOKEN", { value: TOKEN });
      const tools = await d.api("GET", "/api/marketplace/servers/tokened/tools");
      expect(tools.status).toBe(200);
      expect(readFileSync(seen, "utf8")).toBe(TOKEN);
      const shown = await d.api("GET", "/api/marketplace/servers/tokened");
      expect(shown.body.transport.env).toEqual({ TOKEN: "secret:SERVER_TOKEN" });
      expect(JSON.stringify(await d.api("GET", "/api/marketplace/servers"))).not.toContain(TOKEN);
      expect(d.lines.filter((l) => l.includes(TOKEN))).toEqual([]);
    }));
});
