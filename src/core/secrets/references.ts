// Secret references (docs/api.md#references) and their resolution, just before a job runs:
// - `NAME`: through secrets.provider: the local store, or Bitwarden first (then the local store);
// - `local://NAME`: the local store;
// - `bw://ITEM` or `bw://ITEM/FIELD`: `bw get FIELD ITEM` (FIELD password by default), with the
//   session from the local secret BW_SESSION;
// - `op://VAULT/ITEM/FIELD`: `op read op://VAULT/ITEM/FIELD` (the 1Password CLI's own reference).
// A CLI that is missing or fails, or a name nobody holds, fails the whole job before anything runs.
import { spawn } from "node:child_process";
import { SignetError, invalidInput } from "../../contracts/errors";
import { SECRET_NAME, SECRET_NAME_RULE } from "../../contracts/vocabulary";
import type { SecretStore } from "./store";

export type SecretProvider = "local" | "bitwarden";

export type Reference =
  | { kind: "local"; name: string }
  | { kind: "provider"; name: string }
  | { kind: "bitwarden"; item: string; field: string }
  | { kind: "1password"; ref: string };

/** The fields `bw get` returns as text. */
const BW_FIELDS = new Set(["password", "username", "notes", "totp", "uri"]);
/** How long a password manager's CLI may take to answer (an unlocked vault answers in about a second). */
const CLI_TIMEOUT_MS = 30_000;
const CLI_OUTPUT_MAX = 256 * 1024;

/** A reference that cannot be resolved: the job fails with this message, and nothing runs. */
class SecretReferenceError extends SignetError {
  constructor(message: string) {
    super("invalid_input", message);
    this.name = "SecretReferenceError";
  }
}

/** Parses one reference; `env` names it in the error (400) when it is malformed. */
export function parseReference(ref: string, env: string): Reference {
  const bad = (why: string) => invalidInput(`secrets.${env}: ${why}`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(ref);
  if (!scheme) {
    if (!SECRET_NAME.test(ref)) throw bad(`${JSON.stringify(ref.slice(0, 100))} is neither a secret name (${SECRET_NAME_RULE}) nor a local://, bw:// or op:// reference`);
    return { kind: "provider", name: ref };
  }
  const [, kind, rest] = scheme as unknown as [string, string, string];
  switch (kind.toLowerCase()) {
    case "local":
      if (!SECRET_NAME.test(rest)) throw bad(`local://${rest.slice(0, 100)}: the name must be ${SECRET_NAME_RULE}`);
      return { kind: "local", name: rest };
    case "bw": {
      const slash = rest.lastIndexOf("/");
      const [item, field] = slash > 0 && BW_FIELDS.has(rest.slice(slash + 1)) ? [rest.slice(0, slash), rest.slice(slash + 1)] : [rest, "password"];
      if (item === "" || /[\0\n\r]/.test(item)) throw bad("bw:// needs an item name or id: bw://ITEM or bw://ITEM/FIELD (password, username, notes, totp, uri)");
      return { kind: "bitwarden", item, field };
    }
    case "op":
      if (rest.split("/").filter(Boolean).length < 3 || /[\0\n\r]/.test(rest)) throw bad("op:// references are op://VAULT/ITEM/FIELD");
      return { kind: "1password", ref: `op://${rest}` };
    default:
      throw bad(`unknown reference scheme ${kind}://; use a name, local://NAME, bw://ITEM or op://VAULT/ITEM/FIELD`);
  }
}

export interface ResolverOptions {
  store: SecretStore;
  provider: SecretProvider;
  /** The environment the password managers' CLIs run with (PATH, HOME, LANG). */
  baseEnv: Record<string, string>;
}

/** Runs a password manager's CLI; its stdout, or a SecretReferenceError saying what went wrong. */
function runCli(command: string, args: string[], env: Record<string, string>, what: string): Promise<string> {
  const product = command === "bw" ? "the Bitwarden CLI `bw`" : "the 1Password CLI `op`";
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch {
      // Refused before it ran (an argument or a value of its environment spawning cannot pass on):
      // the error's text quotes them, and the environment holds a secret.
      return reject(new SecretReferenceError(`${what}: ${product} could not be started with this reference or its session`));
    }
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
      reject(new SecretReferenceError(`${what}: ${product} did not answer within ${CLI_TIMEOUT_MS / 1000} s`));
    }, CLI_TIMEOUT_MS);
    child.stdout!.on("data", (d: Buffer) => (stdout = (stdout + d.toString("utf8")).slice(0, CLI_OUTPUT_MAX)));
    child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-2048)));
    child.once("error", (err) => {
      clearTimeout(timer);
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(new SecretReferenceError(`${what}: ${missing ? `${product} is not installed or not on the daemon's PATH` : `${product} could not be started: ${err.message}`}`));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      // Anything it left in its group goes with it.
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
      if (code === 0) return resolve(stdout.replace(/\r?\n$/, ""));
      const said = stderr.trim().split("\n").pop()?.slice(0, 300) || `exit code ${code}`;
      reject(new SecretReferenceError(`${what}: ${product} failed: ${said}`));
    });
  });
}

export class ReferenceResolver {
  constructor(private readonly options: ResolverOptions) {}

  /** env name -> value for every reference, or the first failure; a password manager is asked only once per reference. */
  async resolve(refs: Record<string, Reference>): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    for (const [env, ref] of Object.entries(refs)) values[env] = await this.one(env, ref);
    return values;
  }

  private local(env: string, name: string): string {
    const value = this.options.store.get(name);
    if (value === undefined) throw new SecretReferenceError(`${env}: no secret named ${name} in the local store (set it with \`signet secret set ${name}\`)`);
    return value;
  }

  private async one(env: string, ref: Reference): Promise<string> {
    switch (ref.kind) {
      case "local":
        return this.local(env, ref.name);
      case "provider":
        if (this.options.provider === "local") return this.local(env, ref.name);
        // Bitwarden first, as secrets.provider says; a name only the local store holds still resolves.
        try {
          return await this.bitwarden(env, ref.name, "password");
        } catch (err) {
          if (this.options.store.get(ref.name) !== undefined) return this.local(env, ref.name);
          throw err;
        }
      case "bitwarden":
        return this.bitwarden(env, ref.item, ref.field);
      case "1password":
        return runCli("op", ["read", "--no-newline", ref.ref], this.options.baseEnv, `${env} (${ref.ref})`);
    }
  }

  private bitwarden(env: string, item: string, field: string): Promise<string> {
    const what = `${env} (bw://${item}${field === "password" ? "" : `/${field}`})`;
    const session = this.options.store.get("BW_SESSION");
    if (session === undefined) {
      return Promise.reject(
        new SecretReferenceError(`${what}: Bitwarden needs an unlocked session: run \`bw unlock --raw | signet secret set BW_SESSION\``),
      );
    }
    if (session.includes("\0")) {
      return Promise.reject(new SecretReferenceError(`${what}: the secret BW_SESSION contains a NUL byte, which no session holds: set it again with \`bw unlock --raw | signet secret set BW_SESSION\``));
    }
    return runCli("bw", ["get", field, item, "--nointeraction"], { ...this.options.baseEnv, BW_SESSION: session }, what);
  }
}
