// `secret:NAME` values in an installed server's env and headers: stored and shown as references,
// resolved only when the server starts, so no API answer or log ever holds the value.
import { SignetError } from "../../contracts/errors";

const PREFIX = "secret:";

/** Returns the secret's value, or throws a SignetError naming what is missing. */
export type SecretLookup = (name: string) => string;

function isSecretRef(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** A lookup for when no secret store is available: every reference fails with a clear reason. */
export const noSecretStore: SecretLookup = (name) => {
  throw new SignetError(
    "server_unavailable",
    `secret:${name} cannot be resolved: this version of Signet has no secret store yet; put the value in the server's env directly or remove the reference`,
  );
};

export function resolveSecretRefs(values: Record<string, string>, lookup: SecretLookup): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    resolved[key] = isSecretRef(value) ? lookup(value.slice(PREFIX.length)) : value;
  }
  return resolved;
}
