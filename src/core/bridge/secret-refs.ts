// `secret:NAME` values in an installed server's env and headers: stored and shown as references,
// resolved from the local secret store only when the server starts, so no API answer or log ever
// holds the value (docs/security.md#secrets).
import { SignetError } from "../../contracts/errors";

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

export function resolveSecretRefs(values: Record<string, string>, lookup: SecretLookup): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    resolved[key] = isSecretRef(value) ? lookup(value.slice(PREFIX.length)) : value;
  }
  return resolved;
}
