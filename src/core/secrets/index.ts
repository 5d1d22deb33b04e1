// The daemon's secrets: the local store, reference resolution, exec jobs, and the lookup that
// resolves installed MCP servers' `secret:NAME` values when a server starts (docs/security.md#secrets).
import { join } from "node:path";
import type { Logger } from "../../logger";
import { probeSandbox, type Sandbox } from "../../os/sandbox";
import { ChildLedger } from "../bridge/child-ledger";
import { storeLookup, type SecretLookup } from "../bridge/secret-refs";
import { SecretExecService, minimalEnv } from "./exec";
import type { SecretJobStore } from "./job-store";
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
  /** Where exec jobs are kept: the daemon's store. */
  jobStore: SecretJobStore;
  provider: SecretProvider;
  /** SIGNET_SECRETS_PASSPHRASE: derive the store's key from it instead of a key file. */
  passphrase?: string;
  /** `secrets.sandbox`, `secrets.execUnsandboxed` and `secrets.execWritable`. */
  jobs: { sandbox: "auto" | "off"; execUnsandboxed: boolean; execWritable: string[] };
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
  const { jobs } = options;
  // Probed at the first job, not at every start: running bubblewrap once costs ~60 ms of a blocked
  // event loop, and most daemons never run a job (signet doctor reports it on its own).
  let probed: Sandbox | null | undefined;
  const sandbox = (): Sandbox | null => {
    if (probed !== undefined) return probed;
    const probe = jobs.sandbox === "off" ? { sandbox: null, reason: "secrets.sandbox is off" } : probeSandbox(process.env.PATH);
    if (probe.sandbox) log.info(`secret exec: jobs run in a bubblewrap sandbox (${probe.sandbox.bwrap})`);
    else log.warn(`secret exec: jobs run without a sandbox (${probe.reason})${jobs.execUnsandboxed ? "" : "; API tokens in team and hybrid modes may not run them"}`);
    probed = probe.sandbox;
    return probed;
  };
  const exec = new SecretExecService({
    jobs: options.jobStore,
    resolver,
    log,
    ledger,
    sandbox,
    hide: [options.dataDir],
    writable: jobs.execWritable,
    allowUnsandboxed: jobs.execUnsandboxed,
  });
  exec.start().catch((err) => log.error(`secret exec: marking the jobs a stopped daemon left as interrupted failed: ${(err as Error).message}`));
  return { store, exec, lookup: storeLookup(store), stop: () => exec.stop() };
}
