// `signet hook <event> --harness <name>`: what a harness's lifecycle hook runs (docs/hooks.md).
// It reads the harness's hook JSON on stdin, sends the daemon's hook (POST /api/hooks/<event>)
// and prints what that harness expects. The command line `signet setup` writes carries the data
// directory, and the daemon URL, the token file and the agent when the MCP entry carries them too
// (never a token); what it does not carry comes from the environment and agent.yaml.
// A hook must never stand in the user's way: a daemon that is down, a refusal, bad stdin or a bad
// config print nothing on stdout and exit 0 (the last three with one line on stderr); only a
// mistake in the command itself (unknown event or harness) is a usage error.
import { isTerminal } from "../os/terminal";
import { readTextUpTo } from "../os/bounded-read";
import { ApiError, CONNECTION_REFUSED, DaemonUnreachableError, SignetClient } from "../client/client";
import { isLoopbackHost, loopbackCandidates } from "../config/daemon-url";
import { loadConfig } from "../config/load";
import type { Config } from "../config/schema";
import { HOOK_EVENTS, type HookEvent } from "../contracts/hook-events";
import type { HookContextResponse, HookRequest } from "../contracts/session";
import { HookInputError, SENDS_TRANSCRIPT, hookOutput, parseHookInput, projectOfDirectory, type HookInput, type HookOutput } from "../harness/hook-io";
import { HOOK_FLAGS } from "../harness/hook-command";
import { HARNESS_NAMES, type HarnessName, type Reach } from "../harness/types";
import { boundTranscript, readTranscriptFile, transcriptText } from "../harness/transcript";
import { harnessProcess } from "../os/harness-process";
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { ExitError, UsageError } from "./errors";
import { parseArgs } from "./parse-args";
import { terminalJson, terminalText } from "./terminal-text";

/** How long the daemon's port may take to accept a connection: a daemon that is down costs no more. */
const CONNECT_TIMEOUT_MS = 500;
/** The daemon's answer: prompt-time hooks are waited on by the user; the others carry a transcript. */
const ANSWER_TIMEOUT_MS: Record<HookEvent, number> = {
  "session-start": 5000,
  "user-prompt-submit": 5000,
  "compaction-complete": 5000,
  "pre-compaction": 20_000,
  "session-end": 20_000,
};
/** The most stdin read: OpenCode's plugin sends a transcript inline, other harnesses a small object. */
const MAX_STDIN_BYTES = 32 * 1024 * 1024;
/** The longest prompt the daemon accepts (src/contracts/session.ts). */
const MAX_PROMPT_CHARS = 100_000;
const MAX_TRANSCRIPT_CHARS = 4_000_000;
/** Room in the body for everything but the transcript. */
const BODY_MARGIN_BYTES = 16 * 1024;

const args = {
  event: { type: "positional", required: true, description: `The lifecycle event: ${HOOK_EVENTS.join(", ")}` },
  harness: { type: "string", required: true, description: `The harness whose hook JSON is on stdin: ${HARNESS_NAMES.join(", ")}` },
  "data-dir": { type: "string", description: "The data directory, in place of SIGNET_PATH (signet setup writes the one it was run with)" },
  url: { type: "string", description: "The daemon URL (origin only), in place of SIGNET_DAEMON_URL" },
  "token-file": { type: "string", description: "A 0600 file holding the API token, in place of SIGNET_TOKEN_FILE / SIGNET_TOKEN" },
  agent: { type: "string", description: "The agent to act as, in place of SIGNET_AGENT_ID" },
} as const;

/** The flags setup writes, each standing in for the environment variable the MCP entry would carry. */
type Overrides = Partial<Record<keyof Reach, string>>;

function note(message: string): void {
  process.stderr.write(`signet hook: ${message}\n`);
}

/** Bun's own stdin, not process.stdin: Node's stream machinery costs milliseconds at every prompt. */
async function readStdin(): Promise<string> {
  if (isTerminal(0)) throw new HookInputError("no hook JSON on stdin (a harness pipes it in)");
  const text = await readTextUpTo(Bun.stdin.stream(), MAX_STDIN_BYTES);
  if (text === null) throw new HookInputError(`stdin is larger than ${MAX_STDIN_BYTES} bytes`);
  return text;
}

/**
 * Whether something accepts connections at `origin` within CONNECT_TIMEOUT_MS. Bun's own socket, not
 * node:net, which loads Node's stream machinery at every prompt.
 */
function portOpen(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((done) => {
    const finish = (open: boolean) => {
      clearTimeout(timer);
      done(open);
    };
    const timer = setTimeout(() => finish(false), CONNECT_TIMEOUT_MS);
    Bun.connect({
      hostname,
      port,
      socket: {
        open(socket) {
          socket.end();
          finish(true);
        },
        data() {},
        error() {},
      },
    }).catch(() => finish(false));
  });
}

async function daemonListening(url: string): Promise<boolean> {
  for (const origin of loopbackCandidates(url)) if (await portOpen(origin)) return true;
  return false;
}

/** The transcript as text that fits in the daemon's body cap with the rest of the request. */
function fitTranscript(text: string, maxBodyBytes: number): string {
  const budget = maxBodyBytes - BODY_MARGIN_BYTES;
  let fitted = boundTranscript(text, MAX_TRANSCRIPT_CHARS);
  for (let i = 0; i < 5; i++) {
    const bytes = Buffer.byteLength(JSON.stringify(fitted));
    if (bytes <= budget) return fitted;
    fitted = boundTranscript(fitted, Math.floor((fitted.length * budget) / bytes) - 64);
  }
  return "";
}

function transcriptOf(event: HookEvent, input: HookInput): string | undefined {
  if (input.transcript !== undefined) return input.transcript;
  if (input.transcriptPath === undefined) return undefined;
  try {
    return transcriptText(readTranscriptFile(input.transcriptPath));
  } catch (err) {
    note(`cannot read the transcript ${input.transcriptPath}: ${(err as Error).message}; ${event} is sent without it`);
    return undefined;
  }
}

function requestFor(event: HookEvent, harness: HarnessName, input: HookInput, config: Config): HookRequest {
  const body: HookRequest = { sessionKey: input.sessionKey, harness };
  if (input.project !== undefined) body.project = projectOfDirectory(input.project);
  if (input.parentSessionKey !== undefined) body.parentSessionKey = input.parentSessionKey;
  // The harness process, by which its signet-mcp finds this session (docs/hooks.md).
  const harnessProcessId = harnessProcess();
  if (harnessProcessId !== null) body.harnessProcess = harnessProcessId;
  if (event === "user-prompt-submit" && input.prompt !== undefined) body.prompt = input.prompt.slice(0, MAX_PROMPT_CHARS);
  if (SENDS_TRANSCRIPT.has(event)) {
    const transcript = transcriptOf(event, input);
    if (transcript !== undefined && transcript.trim() !== "") body.transcript = fitTranscript(transcript, config.daemon.maxBodyBytes);
  }
  return body;
}

function checkUsage(event: string, harness: unknown): { event: HookEvent; harness: HarnessName } {
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
    throw new UsageError(`unknown hook event ${JSON.stringify(event)}; valid events: ${HOOK_EVENTS.join(", ")}`);
  }
  if (typeof harness !== "string" || !(HARNESS_NAMES as readonly string[]).includes(harness)) {
    throw new UsageError(`--harness must be one of ${HARNESS_NAMES.join(", ")}`);
  }
  return { event: event as HookEvent, harness: harness as HarnessName };
}

/** A configuration error about a value the hook was given as a flag names the flag, as setup wrote it. */
function inFlagTerms(message: string, overrides: Overrides): string {
  let out = message;
  for (const name of Object.keys(overrides) as (keyof Reach)[]) out = out.replace(new RegExp(`\\b${name}\\b`, "g"), HOOK_FLAGS[name]);
  return out;
}

/** Runs the hook; every failure past the usage check is a note on stderr, never an exit code. */
async function runHook(event: HookEvent, harness: HarnessName, overrides: Overrides): Promise<void> {
  let input: HookInput;
  let config: Config;
  try {
    input = parseHookInput(await readStdin());
    config = loadConfig({ env: { ...process.env, ...overrides }, cached: true });
  } catch (err) {
    note(`${inFlagTerms((err as Error).message, overrides)}; nothing was done`);
    return;
  }
  // A loopback port nothing listens on refuses the request itself at once; a host elsewhere that is
  // down may leave a connection hanging, so its port is probed with a short timeout first.
  if (!isLoopbackHost(new URL(config.daemon.url).hostname) && !(await daemonListening(config.daemon.url))) return;
  const client = new SignetClient({
    baseUrl: config.daemon.url,
    agentId: config.agent.id,
    token: config.auth.token,
    actor: "hook",
    actorType: "harness",
    runtimePath: `hook:${harness}`,
    dataDir: config.dataDir,
    // No autostart: a hook never starts a daemon (docs/hooks.md).
  });
  let answer: Awaited<ReturnType<SignetClient["hooks"]["fire"]>>;
  try {
    answer = await client.hooks.fire(event, requestFor(event, harness, input, config), { timeoutMs: ANSWER_TIMEOUT_MS[event] });
  } catch (err) {
    // No daemon is running: nothing to say (docs/hooks.md).
    if (err instanceof DaemonUnreachableError && !err.explained && err.detail === CONNECTION_REFUSED) return;
    if (err instanceof ApiError) note(`the daemon refused ${event}: ${err.message}`);
    else if (err instanceof DaemonUnreachableError) note(err.message);
    else note(`${event} failed: ${(err as Error).message}`);
    return;
  }
  if ("bypassed" in answer) return;
  const out = hookOutput(harness, event, answer as HookContextResponse);
  // console.log, not process.stdout: Node's stdout stream costs milliseconds at every prompt.
  if (out !== undefined) console.log(printedHookOutput(out));
}

/**
 * A hook's output as printed, never with a raw control or bidi character from a memory in it
 * (docs/security.md#input-bounds): JSON with DEL, C1 and bidi characters as `\u009b` escapes (it
 * parses to the same text), plain text with control and bidi characters shown as `\x9b` / `\u202e`,
 * as everywhere the CLI prints text.
 */
export function printedHookOutput(out: HookOutput): string {
  return "json" in out ? terminalJson(out.json) : terminalText(out.text);
}

/**
 * `signet hook ...` without the command tree: main.ts sends a hook here directly, since a harness
 * waits on it at every prompt (docs/hooks.md#latency). The same arguments as the command below.
 */
export async function runHookArgs(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs(Object.entries(args), argv);
    if (positionals.length !== 1) throw new UsageError(`expected one event: ${HOOK_EVENTS.join(", ")}`);
    const overrides: Overrides = {};
    for (const [name, flag] of Object.entries(HOOK_FLAGS) as [keyof Reach, string][]) {
      const value = values[flag.slice(2)];
      if (typeof value === "string" && value.trim() !== "") overrides[name] = value.trim();
    }
    const checked = checkUsage(positionals[0]!, values.harness);
    await runHook(checked.event, checked.harness, overrides);
    return 0;
  } catch (err) {
    return usage((err as Error).message);
  }
}

function usage(message: string): number {
  process.stderr.write(`signet hook: ${message}; see \`signet hook --help\`\n`);
  return 2;
}

export const hook = defineCommand({
  meta: {
    name: "hook",
    description: COMMAND_DESCRIPTIONS.hook,
  },
  args,
  // Reached only where main.ts did not hand the hook over itself: the same handler.
  async run({ rawArgs }) {
    const code = await runHookArgs(rawArgs);
    if (code !== 0) throw new ExitError(code);
  },
});
