// `signet embed status|reindex` (docs/api.md#re-embedding). The daemon does the re-embedding, in the
// background and resuming after a restart; `reindex` starts it (with the owner's admin token, read from
// the data directory by the client) and follows its progress, with a bar on a terminal's stderr.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import type { SignetClient } from "../client/client";
import type { EmbedStatusResponse, ReindexStatus } from "../contracts/embed";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { emit } from "./output";
import { progressBar } from "./progress";
import { textTable } from "./table";

const POLL_MS = 500;
/** How the CLI says the builtin model waits for its first text (doctor.ts too). */
export const MODEL_NOT_LOADED = "model not loaded yet (it loads when there is first something to embed)";

export function reindexLine(r: ReindexStatus): string {
  // The same model after a change of embedding.dimensions: its vectors of the old size answer.
  const previous = r.previousModel === r.model && r.previousDimensions !== undefined ? `${r.previousModel} ${r.previousDimensions}-dimension` : r.previousModel;
  const from = previous ? ` (recall also answers from ${previous} vectors until each is replaced)` : "";
  return r.state === "running"
    ? `re-embedding with ${r.model}: ${r.done}/${r.total} done since ${r.startedAt}${from}`
    : `last re-embedding with ${r.model}: ${r.done} memories, ${r.startedAt} to ${r.finishedAt}`;
}

function statusText(s: EmbedStatusResponse): string {
  if (s.provider === "none") return "provider none: nothing is embedded, recall is keyword-only";
  const lines = [
    `provider ${s.provider}${s.model ? `, model ${s.model}` : ""}: ${s.ok ? `ok${s.loaded ? "" : `, ${MODEL_NOT_LOADED}`}` : `not ok${s.error ? ` (${s.error})` : ""}`}`,
    `${s.pending} memories waiting to be embedded${s.rejected ? `, ${s.rejected} refused by the provider (keyword-only)` : ""}`,
  ];
  if (s.reindex) lines.push(reindexLine(s.reindex));
  if (s.vectors.length > 0) {
    lines.push("", textTable(["model", "dimensions", "vectors"], s.vectors.map((v) => [v.model, String(v.dimensions), String(v.count)]), ["l", "r", "r"]));
  }
  return lines.join("\n");
}

/** Polls the daemon until the re-embedding is done, drawing its progress on a terminal. */
async function follow(client: SignetClient): Promise<EmbedStatusResponse> {
  const bar = progressBar("re-embedding", "memories");
  try {
    for (;;) {
      const s = await client.embed.status();
      const r = s.reindex;
      if (!r || r.state === "done") return s;
      bar.update(r.done, r.total, s.ok ? undefined : `(provider not ok, retrying: ${s.error ?? "unknown error"})`);
      await Bun.sleep(POLL_MS);
    }
  } finally {
    bar.end();
  }
}

const status = defineCommand({
  meta: { name: "status", description: "Show the embedding provider, what waits to be embedded, vectors per model, and any re-embedding" },
  args: { ...clientArgs },
  async run({ args }) {
    const s = await clientFor(configFromFlags(args)).embed.status();
    emit(s, args, statusText);
  },
});

const reindex = defineCommand({
  meta: {
    name: "reindex",
    description:
      "Re-embed every memory with the configured model, after a model or provider change. The daemon does the work and resumes it after a restart; recall keeps answering meanwhile. Follows progress until done (Ctrl-C stops following, not the work).",
  },
  args: {
    all: { type: "boolean", description: "Also re-embed memories whose vector already is of the configured model (e.g. the provider changed, the model's name did not)" },
    wait: { type: "boolean", default: true, description: "Follow progress until done; --no-wait returns once started" },
    ...clientArgs,
  },
  async run({ args }) {
    const client = clientFor(configFromFlags(args));
    const started = await client.embed.reindex({ all: args.all === true });
    if (args.wait === false) {
      emit(started, args, (r) => reindexLine(r.reindex));
      return;
    }
    const s = await follow(client);
    emit(s, args, statusText);
  },
});

export default defineCommand({
  meta: { name: "embed", description: COMMAND_DESCRIPTIONS.embed },
  args: { ...clientArgs },
  subCommands: { status, reindex },
  async run({ args }) {
    const s = await clientFor(configFromFlags(args)).embed.status();
    emit(s, args, (x) => `${statusText(x)}\n\ncommands: signet embed status | reindex [--all] [--no-wait]`);
  },
});
