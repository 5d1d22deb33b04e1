// `secret:NAME` values in an installed server's env and headers: stored and shown as references,
// resolved from the local secret store only when the server starts, so no API answer or log ever
// holds the value (docs/security.md#secrets).
import { SignetError } from "../../contracts/errors";
import { Redactor } from "../secrets/redactor";

const PREFIX = "secret:";

/** Returns the secret's value, or throws a SignetError naming what is missing. */
export type SecretLookup = (name: string) => string;

function isSecretRef(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** A lookup in the local store (core/secrets/store.ts); a missing name or an unreadable store fails the start, saying which. */
export function storeLookup(store: { get(name: string): string | undefined }): SecretLookup {
  return (name) => {
    let value: string | undefined;
    try {
      value = store.get(name);
    } catch (err) {
      throw new SignetError("server_unavailable", `secret:${name} cannot be resolved: ${(err as Error).message}`);
    }
    if (value === undefined) {
      throw new SignetError("server_unavailable", `secret:${name} cannot be resolved: no secret named ${name}; set it with \`signet secret set ${name}\``);
    }
    return value;
  };
}

/** `values` with each `secret:NAME` resolved; `secrets` collects the values resolved, for redaction. */
export function resolveSecretRefs(values: Record<string, string>, lookup: SecretLookup, secrets: string[]): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (!isSecretRef(value)) {
      resolved[key] = value;
      continue;
    }
    const name = value.slice(PREFIX.length);
    const secret = lookup(name);
    // The runtime would refuse it with an error quoting the value.
    if (secret.includes("\0")) throw new SignetError("server_unavailable", `secret:${name} holds a NUL character, which no environment variable or header can carry`);
    secrets.push(secret);
    resolved[key] = secret;
  }
  return resolved;
}

/**
 * What the daemon tells of a server that was given secrets (its errors, its stderr, its answers),
 * with every form of those values redacted as a secret job's output is (core/secrets/redactor.ts):
 * servers often echo a key they reject. Every string inside a JSON value is redacted.
 */
export function secretScrubber(secrets: readonly string[]): <T>(value: T) => T {
  if (secrets.length === 0) return (value) => value;
  // The forms (encodings) of the values are made once, not for each string of each message.
  const redactor = new Redactor(secrets);
  const scrub = (value: unknown): unknown => {
    if (typeof value === "string") return redactor.whole(value);
    if (Array.isArray(value)) return value.map(scrub);
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v)]));
    return value;
  };
  return <T>(value: T) => scrub(value) as T;
}
