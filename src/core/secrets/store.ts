// The local secret store (docs/security.md#secrets-at-rest): one file, $SIGNET_PATH/.secrets/store.enc,
// holding every secret as one AES-256-GCM sealed JSON document. The key is a random 256-bit file
// beside it (store.key, 0600), or is derived with scrypt from a passphrase (SIGNET_SECRETS_PASSPHRASE)
// and then never written anywhere. The header (format, version, key derivation) is authenticated
// data, so any change to the file, a cut one included, fails the tag check and is reported as such:
// the store is read whole or not at all. Writes replace the file atomically and durably.
// The daemon is the store's only reader and writer (it holds the data directory's lock).
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { secretsDir } from "../../config/paths";
import { SignetError } from "../../contracts/errors";
import type { SecretInfo } from "../../contracts/secrets";
import { lstatRefusingSymlink, makeOwnerOnlyDir, writeOwnerOnlyFile } from "../../os/owner-only-files";

const FORMAT = "signet-secrets";
const VERSION = 1;
const KEY_BYTES = 32;
const IV_BYTES = 12;
/** scrypt cost: about 0.1 s and 32 MiB here, once per daemon start. */
const SCRYPT = { N: 1 << 15, r: 8, p: 1 } as const;
const SCRYPT_MAXMEM = 128 * 1024 * 1024;

type Kdf = { type: "key-file" } | { type: "scrypt"; salt: string; N: number; r: number; p: number };

interface Envelope {
  format: typeof FORMAT;
  version: number;
  kdf: Kdf;
  iv: string;
  tag: string;
  ciphertext: string;
}

interface Entry {
  value: string;
  createdAt: string;
  updatedAt: string;
}

type Contents = Record<string, Entry>;

/** The store cannot be read or written: tampered, truncated, the wrong key. Reported, never half-read. */
export class SecretStoreError extends SignetError {
  constructor(message: string) {
    super("unavailable", message);
    this.name = "SecretStoreError";
  }
}

export interface SecretStoreOptions {
  /** Derive the key from this (scrypt) instead of keeping a key file. */
  passphrase?: string;
}

export class SecretStore {
  readonly dir: string;
  readonly file: string;
  readonly keyFile: string;
  private derived?: { salt: string; key: Buffer };

  constructor(dataDir: string, private readonly options: SecretStoreOptions = {}) {
    this.dir = secretsDir(dataDir);
    this.file = join(this.dir, "store.enc");
    this.keyFile = join(this.dir, "store.key");
  }

  /** Names and timestamps, sorted by name; never values. */
  list(): SecretInfo[] {
    return Object.entries(this.read())
      .map(([name, e]) => ({ name, createdAt: e.createdAt, updatedAt: e.updatedAt }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The value, for injecting into a process the daemon starts; undefined when there is none. */
  get(name: string): string | undefined {
    return this.read()[name]?.value;
  }

  set(name: string, value: string): SecretInfo & { created: boolean } {
    const contents = this.read();
    const now = new Date().toISOString();
    const existing = Object.hasOwn(contents, name) ? contents[name] : undefined;
    contents[name] = { value, createdAt: existing?.createdAt ?? now, updatedAt: now };
    this.write(contents);
    return { name, createdAt: contents[name]!.createdAt, updatedAt: now, created: existing === undefined };
  }

  /** True when it was there. */
  remove(name: string): boolean {
    const contents = this.read();
    if (!Object.hasOwn(contents, name)) return false;
    delete contents[name];
    this.write(contents);
    return true;
  }

  /** Reads and authenticates the whole store; throws SecretStoreError when it cannot. For the daemon's start. */
  check(): number {
    return Object.keys(this.read()).length;
  }

  private read(): Contents {
    let text: string;
    try {
      if (!lstatRefusingSymlink(this.file)) return Object.create(null) as Contents;
      text = readFileSync(this.file, "utf8");
    } catch (err) {
      throw new SecretStoreError(`the secret store ${this.file} cannot be read: ${(err as Error).message}`);
    }
    const envelope = parseEnvelope(text, this.file);
    const key = this.keyFor(envelope.kdf);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(envelope.iv, "base64"));
      decipher.setAAD(aad(envelope.kdf));
      decipher.setAuthTag(Buffer.from(envelope.tag, "base64"));
      plain = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, "base64")), decipher.final()]);
    } catch {
      const why =
        envelope.kdf.type === "scrypt"
          ? "the passphrase (SIGNET_SECRETS_PASSPHRASE) is wrong, or the file was changed or cut short"
          : `the file or its key ${this.keyFile} was changed or cut short`;
      throw new SecretStoreError(
        `the secret store ${this.file} failed its integrity check: ${why}. Nothing was read from it; restore it from a backup, or move it aside and set the secrets again`,
      );
    }
    const contents = JSON.parse(plain.toString("utf8")) as { secrets: Contents };
    return Object.assign(Object.create(null) as Contents, contents.secrets);
  }

  private write(contents: Contents): void {
    makeOwnerOnlyDir(this.dir);
    const kdf = this.kdfForWrite();
    const key = this.keyFor(kdf, true);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(aad(kdf));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify({ secrets: contents }), "utf8"), cipher.final()]);
    const envelope: Envelope = {
      format: FORMAT,
      version: VERSION,
      kdf,
      iv: iv.toString("base64"),
      tag: cipher.getAuthTag().toString("base64"),
      ciphertext: ciphertext.toString("base64"),
    };
    writeOwnerOnlyFile(this.file, `${JSON.stringify(envelope)}\n`, { durable: true });
  }

  /** The existing store's key derivation (kept across writes), or a new one from the options. */
  private kdfForWrite(): Kdf {
    if (this.derived) return { type: "scrypt", salt: this.derived.salt, ...SCRYPT };
    if (this.options.passphrase !== undefined) return { type: "scrypt", salt: randomBytes(16).toString("base64"), ...SCRYPT };
    return { type: "key-file" };
  }

  private keyFor(kdf: Kdf, creating = false): Buffer {
    if (kdf.type === "scrypt") {
      const passphrase = this.options.passphrase;
      if (passphrase === undefined) {
        throw new SecretStoreError(
          `the secret store ${this.file} is protected by a passphrase: start the daemon with SIGNET_SECRETS_PASSPHRASE set`,
        );
      }
      if (this.derived?.salt !== kdf.salt) this.derived = { salt: kdf.salt, key: this.derive(passphrase, kdf) };
      return this.derived.key;
    }
    if (this.options.passphrase !== undefined) {
      throw new SecretStoreError(
        `the secret store ${this.file} is encrypted with its key file ${this.keyFile}, not a passphrase: unset SIGNET_SECRETS_PASSPHRASE`,
      );
    }
    return this.keyFromFile(creating);
  }

  private derive(passphrase: string, kdf: Extract<Kdf, { type: "scrypt" }>): Buffer {
    try {
      return scryptSync(passphrase, Buffer.from(kdf.salt, "base64"), KEY_BYTES, { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: SCRYPT_MAXMEM });
    } catch (err) {
      throw new SecretStoreError(`the secret store's key cannot be derived from the passphrase (${this.file}): ${(err as Error).message}`);
    }
  }

  private keyFromFile(creating: boolean): Buffer {
    let text: string | undefined;
    try {
      if (lstatRefusingSymlink(this.keyFile)) text = readFileSync(this.keyFile, "utf8");
    } catch (err) {
      throw new SecretStoreError(`the secret store's key ${this.keyFile} cannot be read: ${(err as Error).message}`);
    }
    if (text === undefined) {
      if (!creating) {
        throw new SecretStoreError(`the secret store's key ${this.keyFile} is missing: the store ${this.file} cannot be decrypted without it`);
      }
      const key = randomBytes(KEY_BYTES);
      writeOwnerOnlyFile(this.keyFile, `${key.toString("base64")}\n`, { exclusive: true, durable: true });
      return key;
    }
    const key = Buffer.from(text.trim(), "base64");
    if (key.length !== KEY_BYTES) throw new SecretStoreError(`the secret store's key ${this.keyFile} is damaged (not a ${KEY_BYTES * 8}-bit key)`);
    return key;
  }
}

function aad(kdf: Kdf): Buffer {
  return Buffer.from(`${FORMAT}/${VERSION}/${JSON.stringify(kdf)}`);
}

function parseEnvelope(text: string, file: string): Envelope {
  const damaged = (why: string) =>
    new SecretStoreError(
      `the secret store ${file} is damaged (${why}): it was changed or cut short. Nothing was read from it; restore it from a backup, or move it aside and set the secrets again`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damaged("not a complete store file");
  }
  const e = value as Partial<Envelope> | null;
  if (!e || e.format !== FORMAT) throw damaged("not a Signet secret store");
  if (e.version !== VERSION) throw new SecretStoreError(`the secret store ${file} has format version ${String(e.version)}, which this signet does not read`);
  const kdf = e.kdf as { type?: string; salt?: unknown; N?: unknown; r?: unknown; p?: unknown } | undefined;
  const kdfOk = kdf?.type === "key-file" || (kdf?.type === "scrypt" && typeof kdf.salt === "string");
  if (!kdfOk || typeof e.iv !== "string" || typeof e.tag !== "string" || typeof e.ciphertext !== "string") {
    throw damaged("fields are missing or malformed");
  }
  if (kdf.type === "scrypt" && !scryptCostOk(kdf)) throw damaged("its key derivation's cost is not one this signet writes");
  return e as Envelope;
}

/**
 * Whether the header's scrypt parameters are within what this signet writes (SCRYPT). The header is
 * authenticated only with the key they derive, and scrypt runs synchronously, blocking the daemon:
 * a changed N, r or p could hold it for minutes, or ask for more memory than it allows. N must also
 * be a power of two, as scrypt requires.
 */
function scryptCostOk(kdf: { N?: unknown; r?: unknown; p?: unknown }): boolean {
  const within = (n: unknown, max: number) => Number.isSafeInteger(n) && (n as number) >= 1 && (n as number) <= max;
  const { N } = kdf;
  return within(N, SCRYPT.N) && (N as number) >= 2 && ((N as number) & ((N as number) - 1)) === 0 && within(kdf.r, SCRYPT.r) && within(kdf.p, SCRYPT.p);
}
