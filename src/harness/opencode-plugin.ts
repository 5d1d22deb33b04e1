// OpenCode has no command hooks; its lifecycle is open to plugins, JavaScript modules in
// ~/.config/opencode/plugins/ that it loads at startup (its plugins documentation). `signet setup
// --harness opencode` writes this one there; it runs `signet hook <event> --harness opencode` with
// the session's fields on stdin (no shell: an argument list) and puts the context it prints where
// OpenCode lets a plugin add to what the model sees (docs/hooks.md#opencode):
//   session.created                     -> session-start: kept, added to the session's system prompt
//   chat.message (each user message)    -> user-prompt-submit: added to the system prompt of that turn
//   experimental.session.compacting     -> pre-compaction: added to the compaction prompt's context
//   session.compacted                   -> compaction-complete
//   session.deleted, and OpenCode closing (dispose) -> session-end, with the messages as the transcript
// The file is Signet's alone: setup rewrites it whole, --uninstall deletes it.
import { hookFlags } from "./hook-command";
import type { Reach } from "./types";

/** The first line of the file: how setup knows the file is its own. */
const PLUGIN_MARKER = "// Signet lifecycle hooks for OpenCode, written by `signet setup --harness opencode`.";

/** `target`: the data directory and what else the entry carries, passed as `signet hook`'s flags. */
export function opencodePlugin(signet: string, target: Reach): string {
  return `${PLUGIN_MARKER}
// Signet owns this file: \`signet setup --harness opencode\` rewrites it and \`--uninstall\` deletes it.
// What each OpenCode event does: docs/hooks.md in Signet.
const SIGNET = ${JSON.stringify(signet)};
const FLAGS = ${JSON.stringify(hookFlags(target))};

/** Runs \`signet hook\`; its context, or "" (a daemon that is down adds nothing and costs nothing). */
async function hook(event, payload) {
  try {
    const child = Bun.spawn([SIGNET, "hook", event, "--harness", "opencode", ...FLAGS], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    child.stdin.write(JSON.stringify(payload));
    child.stdin.end();
    const out = (await new Response(child.stdout).text()).trim();
    await child.exited;
    return out ? String(JSON.parse(out).context ?? "") : "";
  } catch {
    return "";
  }
}

/** The text a person typed in a message's parts. */
function typed(parts) {
  return (parts ?? [])
    .filter((part) => part && part.type === "text" && !part.synthetic && typeof part.text === "string")
    .map((part) => part.text)
    .join("\\n");
}

export const SignetHooks = async ({ client, directory }) => {
  /** Session id -> its session-start, run once however many events ask for it. */
  const started = new Map();
  const startContext = new Map();
  const promptContext = new Map();

  async function transcript(id) {
    try {
      const answer = await client.session.messages({ path: { id } });
      const lines = (answer?.data ?? []).map((m) => [m?.info?.role, typed(m?.parts)]).filter(([, text]) => text);
      return lines.map(([role, text]) => \`\${role}: \${text}\`).join("\\n");
    } catch {
      return undefined;
    }
  }

  function start(id, parentID) {
    if (!started.has(id)) {
      const payload = { session_id: id, cwd: directory };
      if (parentID) payload.parent_session_id = parentID;
      started.set(id, hook("session-start", payload).then((context) => startContext.set(id, context)));
    }
    return started.get(id);
  }

  async function end(id) {
    if (!started.delete(id)) return;
    startContext.delete(id);
    promptContext.delete(id);
    await hook("session-end", { session_id: id, cwd: directory, transcript: await transcript(id) });
  }

  return {
    event: async ({ event }) => {
      const props = event?.properties ?? {};
      if (event?.type === "session.created" && props.info?.id) await start(props.info.id, props.info.parentID);
      else if (event?.type === "session.deleted" && props.info?.id) await end(props.info.id);
      else if (event?.type === "session.compacted" && props.sessionID) {
        promptContext.delete(props.sessionID);
        await hook("compaction-complete", { session_id: props.sessionID, cwd: directory });
      }
    },
    "chat.message": async (input, output) => {
      const id = input.sessionID;
      // A session resumed from before OpenCode started was never created in this process.
      await start(id);
      promptContext.set(id, await hook("user-prompt-submit", { session_id: id, cwd: directory, prompt: typed(output.parts) }));
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input?.sessionID) return;
      for (const context of [startContext.get(input.sessionID), promptContext.get(input.sessionID)]) {
        if (context) output.system.push(context);
      }
    },
    "experimental.session.compacting": async (input, output) => {
      const context = await hook("pre-compaction", { session_id: input.sessionID, cwd: directory, transcript: await transcript(input.sessionID) });
      if (context) output.context.push(context);
    },
    dispose: async () => {
      for (const id of [...started.keys()]) await end(id);
    },
  };
};
`;
}

/** Whether a file's text is the plugin setup writes (whatever paths it holds). */
export const isSignetPlugin = (text: string | null): boolean => text !== null && text.startsWith(PLUGIN_MARKER);
