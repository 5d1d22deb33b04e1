// The store as the daemon uses it (docs/security.md#at-rest): SIGNET_SECRETS_PASSPHRASE makes a
// passphrase store with no key file; a restart without it, or with the store tampered with, is
// reported at start and by every route and job that needs the store (503, a failed job that ran
// nothing), while the rest of the daemon serves on; so is a header asking for a costlier key
// derivation than the daemon writes. An empty passphrase stops the start.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/daemon";
import { finished, startLoggedDaemon } from "../helpers/secrets";

const dir = tempDir("signet-store-daemon-");
afterAll(() => {
  delete process.env.SIGNET_SECRETS_PASSPHRASE;
  rmSync(dir, { recursive: true, force: true });
});

test("a passphrase store; without the passphrase, or tampered with, it is reported and nothing is read", async () => {
  process.env.SIGNET_SECRETS_PASSPHRASE = "a long passphrase for the test";
  const first = await startLoggedDaemon(dir);
  try {
    expect((await first.api("PUT", "/api/secrets/TOKEN", { value: "passphrase-protected-value" })).status).toBe(200);
    expect(existsSync(join(dir, ".secrets", "store.key"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, ".secrets", "store.enc"), "utf8")).kdf.type).toBe("scrypt");
  } finally {
    await first.daemon.stop();
  }

  delete process.env.SIGNET_SECRETS_PASSPHRASE;
  const second = await startLoggedDaemon(dir);
  try {
    expect(second.lines.some((l) => l.startsWith("error") && l.includes("SIGNET_SECRETS_PASSPHRASE"))).toBe(true);
    const list = await second.api("GET", "/api/secrets");
    expect(list.status).toBe(503);
    expect(list.body.error).toContain("protected by a passphrase");
    const mark = join(dir, "ran-without-the-store");
    const job = await second.api("POST", "/api/secrets/exec", { command: `touch ${mark}`, secrets: { T: "TOKEN" } });
    const done = await finished(second.api, job.body.id);
    expect(done.status).toBe("failed");
    expect(done.error).toContain("SIGNET_SECRETS_PASSPHRASE");
    expect(existsSync(mark)).toBe(false);
    // The rest of the daemon serves on.
    expect((await second.api("GET", "/health")).status).toBe(200);
  } finally {
    await second.daemon.stop();
  }

  process.env.SIGNET_SECRETS_PASSPHRASE = "a long passphrase for the test";
  const file = join(dir, ".secrets", "store.enc");
  const original = readFileSync(file, "utf8");
  writeFileSync(file, original.slice(0, original.length >> 1));
  const third = await startLoggedDaemon(dir);
  try {
    expect(third.lines.some((l) => l.startsWith("error") && l.includes("damaged"))).toBe(true);
    const list = await third.api("GET", "/api/secrets");
    expect(list.status).toBe(503);
    expect(list.body.error).toContain("cut short");
    // Setting would overwrite what is left: refused, the file untouched.
    expect((await third.api("PUT", "/api/secrets/NEW", { value: "v" })).status).toBe(503);
    expect(readFileSync(file, "utf8")).toBe(original.slice(0, original.length >> 1));
  } finally {
    await third.daemon.stop();
  }
});

test("a header asking for more scrypt work than the daemon writes is reported as changed: 503 and one log line, the rest serves on", async () => {
  const tampered = tempDir("signet-store-cost-");
  process.env.SIGNET_SECRETS_PASSPHRASE = "a long passphrase for the test";
  try {
    const first = await startLoggedDaemon(tampered);
    await first.api("PUT", "/api/secrets/TOKEN", { value: "passphrase-protected-value" });
    await first.daemon.stop();
    const file = join(tampered, ".secrets", "store.enc");
    const envelope = JSON.parse(readFileSync(file, "utf8"));
    // More memory than scrypt may take here: a derivation that fails, not a wrong key.
    writeFileSync(file, JSON.stringify({ ...envelope, kdf: { ...envelope.kdf, N: 1 << 20 } }));
    const second = await startLoggedDaemon(tampered);
    try {
      expect(second.lines.filter((l) => l.startsWith("error") && l.includes("secret store"))).toEqual([
        `error the secret store ${file} is damaged (its key derivation's cost is not one this signet writes): it was changed or cut short. Nothing was read from it; restore it from a backup, or move it aside and set the secrets again`,
      ]);
      const list = await second.api("GET", "/api/secrets");
      expect(list.status).toBe(503);
      expect(list.body.error).toContain("key derivation's cost");
      expect((await second.api("PUT", "/api/secrets/NEW", { value: "v" })).status).toBe(503);
      expect((await second.api("GET", "/health")).status).toBe(200);
    } finally {
      await second.daemon.stop();
    }
  } finally {
    delete process.env.SIGNET_SECRETS_PASSPHRASE;
    rmSync(tampered, { recursive: true, force: true });
  }
});

test("an empty passphrase stops the start naming where it came from; no key file is made", async () => {
  const passphraseFile = (contents: string) => {
    const file = join(tempDir("signet-passphrase-"), "passphrase");
    writeFileSync(file, contents, { mode: 0o600 });
    return file;
  };
  const empty = passphraseFile("");
  const blankFirstLine = passphraseFile("\npassphrase on the second line\n");
  const cases: { env: Record<string, string>; said: string }[] = [
    { env: { SIGNET_SECRETS_PASSPHRASE: "" }, said: "SIGNET_SECRETS_PASSPHRASE is set to nothing" },
    { env: { SIGNET_SECRETS_PASSPHRASE_FILE: "" }, said: "SIGNET_SECRETS_PASSPHRASE_FILE is set to nothing" },
    { env: { SIGNET_SECRETS_PASSPHRASE_FILE: empty }, said: `the first line of ${empty} (SIGNET_SECRETS_PASSPHRASE_FILE) is empty` },
    { env: { SIGNET_SECRETS_PASSPHRASE_FILE: blankFirstLine }, said: `the first line of ${blankFirstLine} (SIGNET_SECRETS_PASSPHRASE_FILE) is empty` },
  ];
  for (const { env, said } of cases) {
    const data = tempDir("signet-store-empty-");
    Object.assign(process.env, env);
    try {
      let refused: Error | undefined;
      await startLoggedDaemon(data).then(
        (d) => d.daemon.stop(),
        (err: Error) => (refused = err),
      );
      expect({ env, refused: refused?.message }).toEqual({ env, refused: expect.stringContaining(`the secret store's passphrase is empty: ${said}`) });
      expect(existsSync(join(data, ".secrets", "store.key"))).toBe(false);
      // The refused start let go of the data directory: a start with a passphrase works.
      delete process.env.SIGNET_SECRETS_PASSPHRASE_FILE;
      process.env.SIGNET_SECRETS_PASSPHRASE = "the passphrase meant";
      const d = await startLoggedDaemon(data);
      expect((await d.api("PUT", "/api/secrets/K", { value: "v" })).status).toBe(200);
      await d.daemon.stop();
      expect(existsSync(join(data, ".secrets", "store.key"))).toBe(false);
    } finally {
      delete process.env.SIGNET_SECRETS_PASSPHRASE;
      delete process.env.SIGNET_SECRETS_PASSPHRASE_FILE;
      rmSync(data, { recursive: true, force: true });
    }
  }
});
