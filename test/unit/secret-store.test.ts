// The local secret store at rest (docs/security.md#secrets-at-rest): AES-256-GCM with a key file or
// a passphrase; a changed, cut or swapped file, a lost key or a wrong passphrase is reported and
// nothing is read; writes replace the file whole; modes are owner-only.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SecretStore, SecretStoreError } from "../../src/core/secrets/store";
import { tempDir } from "../helpers/daemon";

const VALUE = "correct horse battery staple";
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function fresh(): string {
  const d = tempDir("signet-store-");
  dirs.push(d);
  return d;
}

function storeWith(dataDir: string, options = {}): SecretStore {
  const store = new SecretStore(dataDir, options);
  store.set("A", VALUE);
  store.set("B", "other");
  return store;
}

describe("key file", () => {
  test("values round trip; the file holds no plaintext, names included; modes are owner-only", () => {
    const d = fresh();
    const store = storeWith(d);
    expect(new SecretStore(d).get("A")).toBe(VALUE);
    expect(store.list().map((s) => s.name)).toEqual(["A", "B"]);
    const raw = readFileSync(store.file, "utf8");
    expect(raw).not.toContain(VALUE);
    expect(raw).not.toContain('"A"');
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(store.keyFile).mode & 0o777).toBe(0o600);
    // Written through a temporary file renamed over the store: none is left.
    expect(readdirSync(store.dir).sort()).toEqual(["store.enc", "store.key"]);
    expect(store.remove("A")).toBe(true);
    expect(store.remove("A")).toBe(false);
    expect(new SecretStore(d).get("A")).toBeUndefined();
  });

  test("a changed byte anywhere is detected and nothing is read", () => {
    const d = fresh();
    const store = storeWith(d);
    const original = readFileSync(store.file, "utf8");
    const envelope = JSON.parse(original);
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, "base64");
      bytes[bytes.length >> 1]! ^= 1;
      return bytes.toString("base64");
    };
    for (const field of ["ciphertext", "iv", "tag"]) {
      writeFileSync(store.file, JSON.stringify({ ...envelope, [field]: flip(envelope[field]) }));
      expect(() => new SecretStore(d).list()).toThrow(SecretStoreError);
      expect(() => new SecretStore(d).get("A")).toThrow(/integrity check/);
    }
    // The header is authenticated too.
    writeFileSync(store.file, JSON.stringify({ ...envelope, kdf: { type: "key-file", extra: 1 } }));
    expect(() => new SecretStore(d).list()).toThrow(/integrity check/);
    writeFileSync(store.file, original);
    expect(new SecretStore(d).get("A")).toBe(VALUE);
  });

  test("a store cut short at any length is reported, never half-read, and a write does not overwrite it", () => {
    const d = fresh();
    const store = storeWith(d);
    const original = readFileSync(store.file);
    for (const length of [0, 1, 20, original.length >> 1, original.length - 3]) {
      writeFileSync(store.file, original.subarray(0, length));
      expect(() => new SecretStore(d).list()).toThrow(SecretStoreError);
      // Setting into a damaged store would lose the rest: refused.
      expect(() => new SecretStore(d).set("C", "x")).toThrow(SecretStoreError);
      expect(readFileSync(store.file)).toEqual(original.subarray(0, length));
    }
  });

  test("a lost or damaged key is named", () => {
    const d = fresh();
    const store = storeWith(d);
    rmSync(store.keyFile);
    expect(() => new SecretStore(d).list()).toThrow(/key .* is missing/);
    writeFileSync(store.keyFile, "short\n");
    expect(() => new SecretStore(d).list()).toThrow(/damaged/);
    // Another store's key: the tag check fails.
    const other = storeWith(fresh());
    writeFileSync(store.keyFile, readFileSync(other.keyFile));
    expect(() => new SecretStore(d).list()).toThrow(/integrity check/);
  });
});

describe("passphrase", () => {
  test("the key comes from the passphrase: no key file, the right one reads, a wrong or missing one is refused", () => {
    const d = fresh();
    const store = storeWith(d, { passphrase: "hunter2 hunter2" });
    expect(existsSync(store.keyFile)).toBe(false);
    expect(JSON.parse(readFileSync(store.file, "utf8")).kdf.type).toBe("scrypt");
    expect(new SecretStore(d, { passphrase: "hunter2 hunter2" }).get("A")).toBe(VALUE);
    expect(() => new SecretStore(d, { passphrase: "wrong" }).get("A")).toThrow(/passphrase .* is wrong/);
    expect(() => new SecretStore(d).get("A")).toThrow(/SIGNET_SECRETS_PASSPHRASE/);
  });

  test("a header asking for another scrypt cost is reported as changed, before any key is derived", () => {
    const d = fresh();
    const store = storeWith(d, { passphrase: "hunter2 hunter2" });
    const original = readFileSync(store.file, "utf8");
    const envelope = JSON.parse(original);
    expect(envelope.kdf).toMatchObject({ N: 1 << 15, r: 8, p: 1 });
    // More work or memory than the daemon writes (p = 400 would hold it for half a minute, N = 2^20
    // with r = 8 exceeds scrypt's memory cap), and what scrypt refuses outright (N not a power of two).
    for (const kdf of [{ p: 2 }, { r: 9 }, { p: 400 }, { N: 1 << 20 }, { N: 3 }, { r: 0 }, { p: 1.5 }, { N: "32768" }]) {
      writeFileSync(store.file, JSON.stringify({ ...envelope, kdf: { ...envelope.kdf, ...kdf } }));
      const reading = new SecretStore(d, { passphrase: "hunter2 hunter2" });
      let thrown: unknown;
      try {
        reading.list();
      } catch (err) {
        thrown = err;
      }
      expect({ kdf, error: thrown instanceof SecretStoreError }).toEqual({ kdf, error: true });
      expect({ kdf, message: (thrown as Error).message }).toEqual({ kdf, message: expect.stringContaining("key derivation's cost is not one this signet writes") });
      expect(() => reading.set("C", "v")).toThrow(SecretStoreError);
    }
    writeFileSync(store.file, original);
    expect(new SecretStore(d, { passphrase: "hunter2 hunter2" }).get("A")).toBe(VALUE);
  });

  test("a passphrase given for a key-file store is refused rather than ignored", () => {
    const d = fresh();
    storeWith(d);
    expect(() => new SecretStore(d, { passphrase: "p" }).list()).toThrow(/unset SIGNET_SECRETS_PASSPHRASE/);
  });
});
