// `signet secret set | list | rm` (docs/api.md#secrets). A value never comes from argv (other accounts
// see argv in `ps`, shells keep it in their history): from a hidden prompt on a terminal, else from
// stdin. Setting and removing use the owner's admin token, which the client reads from .daemon/ itself.
import { StringDecoder } from "node:string_decoder";
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { invalidInput } from "../contracts/errors";
import type { SecretInfo } from "../contracts/secrets";
import { SECRET_NAME, SECRET_NAME_RULE } from "../contracts/vocabulary";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { UsageError } from "./errors";
import { emit } from "./output";
import { textTable } from "./table";

const nameArg = { name: { type: "positional", description: "Secret name (letters, digits and _, not starting with a digit)", required: true } } as const;

/** Checked before a value is asked for: typing a secret for a name the daemon refuses would be for nothing. */
function secretName(name: string): string {
  if (!SECRET_NAME.test(name)) throw invalidInput(`invalid secret name: a secret name is ${SECRET_NAME_RULE}`);
  return name;
}

/** Reads a line from the terminal without echoing it; a paste of several lines is refused. */
function hiddenPrompt(name: string): Promise<string> {
  const stdin = process.stdin;
  const decoder = new StringDecoder("utf8");
  return new Promise((resolve, reject) => {
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      const text = decoder.write(chunk);
      let at = 0;
      for (const ch of text) {
        at += ch.length;
        if (ch === "\r" || ch === "\n" || ch === "\u0004") {
          // Typing ends the line with Enter; text after the line break in the same read was pasted,
          // and its first line alone is not the value.
          if (/[^\r\n]/.test(text.slice(at))) return done(multiLinePaste(name));
          return done();
        }
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode(true);
    // Only once echo is off: what is typed after the prompt shows is never echoed.
    process.stderr.write(`value for ${name}: `);
    stdin.resume();
    stdin.on("data", onData);
  });
}

function multiLinePaste(name: string): UsageError {
  return new UsageError(
    `the value pasted has several lines, and the prompt takes one: nothing was stored. Give a multi-line value on stdin: \`signet secret set ${name} < file\``,
  );
}

/**
 * The value piped in, less the one line ending `echo` or a here-string adds. Taken byte for byte as
 * UTF-8: no byte order mark read as another encoding, no invalid byte replaced, which would store a
 * value other than the one given.
 */
async function fromStdin(name: string): Promise<string> {
  const bytes = await Bun.stdin.bytes();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(
      `the value on stdin is not UTF-8 text, and a secret value must be (it is injected as an environment variable): nothing was stored. Encode binary data first, e.g. \`base64 key.der | signet secret set ${name}\``,
    );
  }
  return text.replace(/\r?\n$/, "");
}

const set = defineCommand({
  meta: {
    name: "set",
    description:
      "Store a secret in the daemon's encrypted store, or replace its value. The value is read from a hidden prompt on a terminal, otherwise from stdin (e.g. `bw unlock --raw | signet secret set BW_SESSION`); never from the command line.",
  },
  args: {
    name: {
      ...nameArg.name,
      // A word after the name is refused (run.ts), and not repeated in the refusal: it is most
      // likely the value, in the shell's history and `ps` already. Storing the prompt's answer
      // instead would leave the user thinking it was this one.
      surplus:
        "the value comes from the hidden prompt or from stdin, never from the command line, so it stays out of the shell's history (`signet secret set NAME`, then type it)",
    },
    ...clientArgs,
  },
  async run({ args }) {
    const name = secretName(args.name);
    const value = process.stdin.isTTY ? await hiddenPrompt(name) : await fromStdin(name);
    if (value === "") throw new UsageError("no value given: type it at the prompt, or pipe it on stdin");
    const saved = await clientFor(configFromFlags(args)).secrets.set(name, { value });
    emit(saved, args, (s) => `${s.created ? "stored" : "replaced"} secret ${s.name}`);
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List the names of stored secrets (never their values)" },
  args: { ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).secrets.list();
    emit(result, args, (r) => renderList(r.secrets));
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Remove a stored secret" },
  args: { ...nameArg, ...clientArgs },
  async run({ args }) {
    const removed = await clientFor(configFromFlags(args)).secrets.remove(secretName(args.name));
    emit(removed, args, (r) => `removed secret ${r.name}`);
  },
});

function renderList(secrets: SecretInfo[]): string {
  if (secrets.length === 0) return "no secrets stored (signet secret set NAME adds one)";
  return textTable(["name", "updated"], secrets.map((s) => [s.name, s.updatedAt]));
}

export const secret = defineCommand({
  meta: {
    name: "secret",
    description: COMMAND_DESCRIPTIONS.secret,
  },
  subCommands: { set, list, rm },
});
