// `signet setup --harness <name>` (alias `signet install`): registers signet-mcp in a harness's
// config, merging with what is there. The work is in src/core/harness; this is flags and output.
import { defineCommand } from "citty";
import { homedir } from "node:os";
import {
  HARNESS_NAMES,
  applyPlan,
  isHarnessName,
  planSetup,
  type AppliedFile,
  type FileAction,
  type HarnessName,
} from "../harness/plan";
import { unifiedDiff } from "../harness/diff";
import { DEFAULT_DAEMON_URL } from "../harness/types";
import { configFromFlags } from "./context";
import { UsageError } from "./errors";
import { emit, outputArgs } from "./output";

const args = {
  harness: { type: "string", description: `Harness to register with: ${HARNESS_NAMES.join(", ")}` },
  "dry-run": { type: "boolean", description: "Show what would change, as a diff, and write nothing" },
  uninstall: { type: "boolean", description: "Remove only the signet entries, keeping everything else" },
  url: { type: "string", description: "Daemon URL (origin only) for signet-mcp; default from SIGNET_DAEMON_URL or config" },
  ...outputArgs,
} as const;

interface SetupOutput {
  harness: HarnessName;
  uninstall: boolean;
  dryRun: boolean;
  changed: boolean;
  files: (AppliedFile & { diff?: string })[];
  notes: string[];
}

function harnessFrom(value: unknown): HarnessName {
  const valid = HARNESS_NAMES.join(", ");
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--harness is required: one of ${valid}`);
  if (!isHarnessName(value)) throw new UsageError(`unknown harness ${JSON.stringify(value)}; valid harnesses: ${valid}`);
  return value;
}

const VERB: Record<FileAction, string> = { created: "created", updated: "updated", unchanged: "unchanged", removed: "removed" };

function render(out: SetupOutput, label: string): string {
  const lines: string[] = [];
  if (out.dryRun) {
    const diffs = out.files.map((f) => f.diff ?? "").join("");
    lines.push(diffs ? diffs.trimEnd() : `nothing would change for ${label}`);
    lines.push(`dry run: nothing was written`);
  } else {
    if (!out.changed) lines.push(out.uninstall ? `signet is not registered with ${label}: nothing changed` : `signet is already registered with ${label}: nothing changed`);
    else lines.push(out.uninstall ? `removed signet from ${label}` : `registered signet-mcp with ${label}`);
    for (const f of out.files) lines.push(`  ${VERB[f.action].padEnd(9)} ${f.path}${f.backup ? `  (backup: ${f.backup})` : ""}`);
    if (out.changed && !out.uninstall) lines.push(`restart ${label} to load it`);
  }
  for (const note of out.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

function command(name: string, description: string) {
  return defineCommand({
    meta: { name, description },
    args,
    async run({ args }) {
      const harness = harnessFrom(args.harness);
      const uninstall = Boolean(args.uninstall);
      const dryRun = Boolean(args["dry-run"]);
      // Removing needs no daemon URL, so a bad one does not stand in the way of an uninstall.
      let daemonUrl = DEFAULT_DAEMON_URL;
      let tokenSet = false;
      if (!uninstall) {
        const config = configFromFlags({ url: args.url });
        daemonUrl = config.daemon.url;
        tokenSet = config.auth.token !== undefined;
      }
      const plan = planSetup(harness, {
        home: process.env.HOME?.trim() || homedir(),
        env: process.env,
        daemonUrl,
        tokenSet,
        uninstall,
      });
      const files = dryRun
        ? plan.files.map((f) => {
            const diff = unifiedDiff(f.path, f.before, f.after);
            return diff ? { path: f.path, action: f.action, diff } : { path: f.path, action: f.action };
          })
        : applyPlan(plan);
      const out: SetupOutput = {
        harness,
        uninstall,
        dryRun,
        changed: plan.files.some((f) => f.action !== "unchanged"),
        files,
        notes: plan.notes,
      };
      emit(out, args, (o) => render(o, plan.label));
    },
  });
}

export const setup = command("setup", "Register signet-mcp in a harness's config (claude-code, codex, opencode)");
export const install = command("install", "Alias of `signet setup`: register signet-mcp in a harness's config");
