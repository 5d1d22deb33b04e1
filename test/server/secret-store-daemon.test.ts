// The store as the daemon uses it (docs/security.md#at-rest): SIGNET_SECRETS_PASSPHRASE makes a
// passphrase store with no key file; a restart without it, or with the store tampered with, is
// reported at start and by every route and job that needs the store (503, a failed job that ran
// nothing), while the rest of the daemon serves on.
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
