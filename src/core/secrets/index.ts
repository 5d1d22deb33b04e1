// The daemon's secrets: the local store, reference resolution, exec jobs, and the lookup that
// resolves installed MCP servers' `secret:NAME` values when a server starts (docs/security.md#secrets).
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../logger";
import { ChildLedger } from "../bridge/child-ledger";
import { storeLookup, type SecretLookup } from "../bridge/secret-refs";
import { SecretExecService, minimalEnv } from "./exec";
import { ReferenceResolver, type SecretProvider } from "./references";
import { SecretStore } from "./store";


export interface Secrets {
  store: SecretStore;
  exec: SecretExecService;
  /** For the bridge: `secret:NAME` from the local store. */
  lookup: SecretLookup;
  stop(): Promise<void>;
}

export interface SecretsOptions {
  dataDir: string;
  db: Database;
  provider: SecretProvider;
  /** SIGNET_SECRETS_PASSPHRASE: derive the store's key from it instead of a key file. */
  passphrase?: string;
  log: Logger;
}

export function openSecrets(options: SecretsOptions): Secrets {
  const { log } = options;
  const store = new SecretStore(options.dataDir, { passphrase: options.passphrase });
  try {
    store.check();
  } catch (err) {
    // Reported now and on every use; the rest of the daemon serves on.
    log.error((err as Error).message);
  }
  // Jobs' processes while they run, for the sweep after a crash; beside the bridge's.
  const ledger = new ChildLedger(join(options.dataDir, ".daemon", "secret-exec-children.json"));
  const swept = ledger.sweep();
  if (swept > 0) log.warn(`ended ${swept} secret exec process(es) left by a daemon that did not stop cleanly`);
  const resolver = new ReferenceResolver({ store, provider: options.provider, baseEnv: minimalEnv() });
  const exec = new SecretExecService({ db: options.db, resolver, log, ledger });
  return { store, exec, lookup: storeLookup(store), stop: () => exec.stop() };
}
