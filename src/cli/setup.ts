// `signet setup --harness <name>` (alias `signet install`): registers signet-mcp and the lifecycle
// hooks (docs/hooks.md) in a harness's config, merging with what is there. The work is in src/harness; this is flags and output.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { resolveDataDir } from "../config/load";
import { unifiedDiff } from "../harness/diff";
import { findMcpCommand } from "../harness/mcp-command";
import {
  HARNESS_NAMES,
  applyPlan,
  harnessLabel,
  isHarnessName,
  planSetup,
  type AppliedFile,
  type FileAction,
  type HarnessName,
} from "../harness/plan";
import { harnessTokenPath } from "../harness/token-file";
import { MCP_COMMAND, type EntryValues } from "../harness/types";
import { isCompiled } from "../self";
import { configFromFlags } from "./context";
import { dropToken, ensureToken, missingTokenNote, tokenNeed, type TokenNeed, type TokenOutcome } from "./setup-token";
import { UsageError } from "./errors";
import { emit, outputArgs } from "./output";

const args = {
  harness: { type: "string", description: `Harness to register with (required): ${HARNESS_NAMES.join(", ")}` },
  "dry-run": { type: "boolean", description: "Show what would change, as a diff, and write nothing" },
  uninstall: { type: "boolean", description: "Remove only Signet's entries, and the files and directories setup created that are left empty" },
  url: { type: "string", description: "Daemon URL (origin only) the entries reach; default from SIGNET_DAEMON_URL or config" },
  agent: {
    type: "string",
    description: "The agent the harness acts as, written into its entries; a token setup makes for it is bound to this agent (default: agent.id, normally default)",
  },
  ...outputArgs,
} as const;

interface SetupOutput {
  harness: HarnessName;
  uninstall: boolean;
  dryRun: boolean;
  changed: boolean;
  /** What the entry runs, and the data directory it is given (SIGNET_PATH). */
  command?: string;
  dataDir: string;
  files: (AppliedFile & { diff?: string })[];
  removedDirs: string[];
  /** The file the entries name for the harness's API token, where the daemon needs one. */
  tokenFile?: string;
  /** What setup did about that token (not in a dry run). */
  token?: TokenOutcome;
  notes: string[];
}

function harnessFrom(value: unknown): HarnessName {
  const valid = HARNESS_NAMES.join(", ");
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--harness is required: one of ${valid}`);
  if (!isHarnessName(value)) throw new UsageError(`unknown harness ${JSON.stringify(value)}; valid harnesses: ${valid}`);
  return value;
}

/**
 * The signet the hooks run: the one beside signet-mcp (its link keeps the installed name, like the
 * MCP entry), else the running binary.
 */
function signetCommand(mcp: string): string {
  const beside = join(dirname(mcp), "signet");
  if (Bun.which("signet", { PATH: dirname(mcp) }) === beside) return beside;
  if (isCompiled()) return process.execPath;
  throw new Error(`there is no signet beside ${mcp} for the hooks to run: install Signet with \`signet self-install\`, then run this again`);
}

/** The absolute signet-mcp the entry names, or a refusal saying how to install one. */
function mcpCommand(label: string): string {
  const beside = isCompiled() ? dirname(process.execPath) : undefined;
  const found = findMcpCommand(process.env, beside);
  if (found) return found;
  const where = beside ? `beside ${process.execPath} or on PATH` : "on PATH";
  throw new Error(
    `there is no ${MCP_COMMAND} ${where} for ${label} to start: install Signet with \`signet self-install\` (it puts signet and ${MCP_COMMAND} in ~/.local/bin), then run this again`,
  );
}

const LINE: Record<FileAction, (f: AppliedFile) => string> = {
  created: (f) => `created   ${f.path} with ${f.entry}`,
  updated: (f) => `updated   ${f.entry} in ${f.path}`,
  removed: (f) => `removed   ${f.entry} from ${f.path}`,
  deleted: (f) => `deleted   ${f.path}: setup created it, and ${f.entry} was all it held`,
  unchanged: (f) => `unchanged ${f.path}`,
};

const TOKEN_LINE: Record<TokenOutcome["action"], (t: TokenOutcome) => string> = {
  created: (t) => `created   ${t.file} with a new token ${t.id} for agent ${t.agentId}`,
  replaced: (t) => `updated   ${t.file} with a new token ${t.id} for agent ${t.agentId}${t.revoked ? ` (${t.revoked} revoked)` : ""}`,
  kept: (t) => `unchanged ${t.file}: token ${t.id} for agent ${t.agentId}, still valid`,
  stored: (t) => `updated   ${t.file} with the configured token`,
  unchanged: (t) => `unchanged ${t.file}`,
  deleted: (t) => `deleted   ${t.file}${t.revoked ? ` (token ${t.revoked} revoked)` : ""}`,
};

function render(out: SetupOutput, label: string): string {
  const lines: string[] = [];
  if (out.dryRun) {
    const diffs = out.files.map((f) => f.diff ?? "").join("");
    lines.push(diffs ? diffs.trimEnd() : `nothing would change for ${label}`);
    if (out.tokenFile && !out.uninstall) lines.push(`the entries name ${out.tokenFile}: the harness's token, written (or kept while valid) when setup runs without --dry-run`);
    if (out.tokenFile && out.uninstall) lines.push(`${out.tokenFile}, the harness's token, would be deleted and its token revoked`);
    lines.push(`dry run: nothing was written`);
  } else {
    if (!out.changed) lines.push(out.uninstall ? `signet is not registered with ${label}: nothing changed` : `signet is already registered with ${label}: nothing changed`);
    else lines.push(out.uninstall ? `removed signet from ${label}` : `registered ${out.command} with ${label} (SIGNET_PATH ${out.dataDir})`);
    for (const f of out.files) {
      const why = f.reason && f.action !== "unchanged" ? ` (${f.reason})` : "";
      lines.push(`  ${LINE[f.action](f)}${why}${f.backup ? `  (backup: ${f.backup})` : ""}`);
    }
    for (const dir of out.removedDirs) lines.push(`  deleted   ${dir}/: setup created it, and it is empty now`);
    if (out.token) lines.push(`  ${TOKEN_LINE[out.token.action](out.token)}`);
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
      const label = harnessLabel(harness);
      // Removing needs no daemon URL or signet-mcp, so neither stands in the way of an uninstall.
      let dataDir = resolveDataDir();
      let install: EntryValues | undefined;
      let need: TokenNeed = { kind: "none" };
      const notes: string[] = [];
      if (!uninstall) {
        // The configured URL, not where the daemon runs now: the entries' clients find a running daemon themselves.
        const config = configFromFlags({ url: args.url, agent: args.agent }, { running: false });
        dataDir = config.dataDir;
        const command = mcpCommand(label);
        need = tokenNeed(config, harness, config.agent.id);
        install = { command, signet: signetCommand(command), daemonUrl: config.daemon.url };
        if (need.kind === "mint" || need.kind === "given") install.tokenFile = need.file;
        if (args.agent !== undefined) install.agentId = config.agent.id;
        if (need.kind === "missing") notes.push(missingTokenNote(need));
      }
      const plan = planSetup(harness, { home: process.env.HOME?.trim() || homedir(), env: process.env, dataDir, install });
      const tokenFile = install ? install.tokenFile : existsSync(harnessTokenPath(dataDir, harness)) ? harnessTokenPath(dataDir, harness) : undefined;
      let token: TokenOutcome | undefined;
      let applied: { files: (AppliedFile & { diff?: string })[]; removedDirs: string[]; notes: string[] };
      if (dryRun) {
        applied = {
          files: plan.files.map(({ before, after, ...file }) => {
            const diff = unifiedDiff(file.path, before, after);
            return diff ? { ...file, diff } : file;
          }),
          removedDirs: [],
          notes: [],
        };
      } else {
        // The token file is there before an entry names it; a plan that cannot be applied failed above, before any token was made.
        if (need.kind === "mint" || need.kind === "given") token = await ensureToken(need, configFromFlags({ url: args.url, agent: args.agent }), harness, notes);
        applied = applyPlan(plan);
        if (uninstall) token = await dropToken(() => configFromFlags({ url: args.url }), harness, dataDir, notes);
      }
      notes.push(...plan.notes, ...applied.notes);
      if (install && process.env.SIGNET_PATH?.trim()) {
        notes.push(`the entry gives signet-mcp SIGNET_PATH=${dataDir}, from this shell: run the CLI with the same SIGNET_PATH to see what the agent stores`);
      }
      const tokenChanged = token !== undefined && token.action !== "kept" && token.action !== "unchanged";
      const out: SetupOutput = {
        harness,
        uninstall,
        dryRun,
        changed: plan.files.some((f) => f.action !== "unchanged") || tokenChanged,
        ...(install ? { command: install.command } : {}),
        dataDir,
        files: applied.files,
        removedDirs: applied.removedDirs,
        ...(tokenFile ? { tokenFile } : {}),
        ...(token ? { token } : {}),
        notes,
      };
      emit(out, args, (o) => render(o, label));
    },
  });
}

export const setup = command("setup", COMMAND_DESCRIPTIONS.setup);
export const install = command("install", COMMAND_DESCRIPTIONS.install);
