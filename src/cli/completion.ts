// `signet completion bash|zsh|fish`: a completion script generated from the command tree itself
// (commands, each one's flags, fixed values), so it cannot drift from the binary that prints it.
// Installed MCP server names come from `signet mcp list --json` when the tab key is pressed, with
// SIGNET_AUTOSTART=0 so completing never starts a daemon.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { INVOCATION_SOURCES } from "../contracts/analytics";
import { HARNESS_NAMES } from "../harness/types";
import { UsageError } from "./errors";
import { stdout } from "./output";
import { flagNames } from "./parse-args";
import { commandParts, firstSentence, type AnyCommand } from "./run";

interface Flag {
  names: string[];
  description: string;
  takesValue: boolean;
  values?: readonly string[];
}

/** One command of the tree, by its words (`signet mcp add`). */
interface Node {
  path: string;
  description: string;
  subs: Node[];
  flags: Flag[];
  /** What its positional argument can be: fixed words, or the installed servers' names. */
  positional?: readonly string[] | "servers";
}

const SHELL_NAMES = ["bash", "zsh", "fish"] as const;

/** Flags whose values are a fixed set. */
const FLAG_VALUES: Record<string, readonly string[]> = {
  "signet setup --harness": HARNESS_NAMES,
  "signet install --harness": HARNESS_NAMES,
  "signet mcp import --from": HARNESS_NAMES,
  "signet mcp analytics --source": INVOCATION_SOURCES,
};

/** Commands whose positional argument is an installed server's name. */
const SERVER_ARGUMENT = new Set(["signet mcp remove", "signet mcp enable", "signet mcp disable", "signet mcp analytics"]);

const HELP_FLAG: Flag = { names: ["--help", "-h"], description: "Show this help", takesValue: false };

/** `signet mcp <server> ...`: any word there that is not one of `signet mcp`'s own commands. */
const SERVER_PATH = "signet mcp <server>";
const SERVER_NODE: Node = {
  path: SERVER_PATH,
  description: "",
  subs: [{ path: `${SERVER_PATH} list-tools`, description: "The server's tools and their parameters", subs: [], flags: [HELP_FLAG] }],
  flags: [HELP_FLAG],
};

async function collect(cmd: AnyCommand, path: string): Promise<Node> {
  const parts = await commandParts(cmd);
  const flags: Flag[] = [];
  let positional: Node["positional"];
  for (const [name, spec] of parts.args) {
    if (spec.type === "positional") {
      if (path === "signet completion") positional = SHELL_NAMES;
      else if (SERVER_ARGUMENT.has(path)) positional = "servers";
      continue;
    }
    const values = FLAG_VALUES[`${path} --${name}`];
    flags.push({ names: flagNames(name, spec), description: spec.description ?? "", takesValue: spec.type !== "boolean", ...(values ? { values } : {}) });
  }
  flags.push(HELP_FLAG);
  const subs: Node[] = [];
  for (const sub of parts.subs) subs.push(await collect(await sub.load(), `${path} ${sub.name}`));
  if (path === "signet mcp") subs.push(SERVER_NODE);
  return { path, description: parts.description, subs, flags, ...(positional ? { positional } : {}) };
}

function all(node: Node): Node[] {
  return [node, ...node.subs.flatMap(all)];
}

const last = (path: string) => path.slice(path.lastIndexOf(" ") + 1);
const parentOf = (path: string) => path.slice(0, path.lastIndexOf(" "));
/** The first sentence of a description, on one line: what a completion menu shows. */
const brief = (text: string) => firstSentence(text).replace(/\s+/g, " ");
/** POSIX shells' single quotes: `it's` → `'it'\''s'`. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What the shells' `case` matches to step from a command to a subcommand: `signet:daemon`, ... */
function stepPairs(nodes: Node[]): string[] {
  return nodes.filter((n) => n.path.includes(" ") && n.path !== SERVER_PATH).map((n) => `${parentOf(n.path)}:${last(n.path)}`);
}

/** `case` arms mapping `<command> <flag>` to its completion, flags with fixed values first. */
function valueArms(nodes: Node[], fixed: (values: readonly string[]) => string, free: string): string[] {
  const arms: string[] = [];
  const freeKeys: string[] = [];
  for (const node of nodes) {
    for (const flag of node.flags.filter((f) => f.takesValue)) {
      const keys = flag.names.map((n) => sq(`${node.path} ${n}`)).join("|");
      if (flag.values) arms.push(`${keys}) ${fixed(flag.values)} ;;`);
      else freeKeys.push(keys);
    }
  }
  if (freeKeys.length > 0) arms.push(`${freeKeys.join("|")}) ${free} ;;`);
  return arms;
}

/** What a command completes to besides its flags: subcommands, fixed positional values, server names. */
function offers(node: Node) {
  return {
    subs: node.subs.filter((s) => s.path !== SERVER_PATH),
    values: Array.isArray(node.positional) ? node.positional : [],
    servers: node.path === "signet mcp" || node.positional === "servers",
  };
}

/** bash and zsh alike: the `case` that steps from the command `$cmd` to the one the word `$w` names. */
function stepCase(nodes: Node[]): string {
  return `    case "$cmd:$w" in
      ${stepPairs(nodes).map(sq).join("|")}) cmd="$cmd $w" ;;
      'signet mcp:'*) cmd=${sq(SERVER_PATH)} ;;
    esac`;
}

/**
 * bash and zsh alike: a flag's value (`fixed` values, else `free`), or else `assign` what a flag
 * (`dashes`) or a word may be for the command `$cmd`.
 */
function candidates(nodes: Node[], fixed: (values: readonly string[]) => string, free: string, assign: (node: Node, dashes: boolean) => string): string {
  const arms = (dashes: boolean) => nodes.map((n) => `      ${sq(n.path)}) ${assign(n, dashes)} ;;`).join("\n");
  return `  case "$cmd $prev" in
${valueArms(nodes, fixed, free)
  .map((a) => `    ${a}`)
  .join("\n")}
  esac
  if [[ $cur == -* ]]; then
    case "$cmd" in
${arms(true)}
    esac
  else
    case "$cmd" in
${arms(false)}
    esac
  fi`;
}

const SERVERS_SED = `sed -n 's/^      "name": "\\(.*\\)",$/\\1/p'`;

function bash(root: Node): string {
  const nodes = all(root);
  const words = (node: Node, dashes: boolean) => {
    if (dashes) return `words=${sq(node.flags.flatMap((f) => f.names).join(" "))}`;
    const { subs, values, servers } = offers(node);
    return `words="${[...subs.map((s) => last(s.path)), ...values].join(" ")}${servers ? ` $(_signet_servers "$1")` : ""}"`;
  };
  return `# bash completion for signet, generated by \`signet completion bash\`. Load it from ~/.bashrc:
#   eval "$(signet completion bash)"
# or save it as ~/.local/share/bash-completion/completions/signet.
_signet_servers() {
  SIGNET_AUTOSTART=0 "$1" mcp list --json 2>/dev/null | ${SERVERS_SED}
}
_signet() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=signet words="" w i
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    # After --, the words are another program's command line: files, as bash completes by default.
    [[ $w == -- ]] && return 0
    [[ $w == -* ]] && continue
${stepCase(nodes)}
  done
${candidates(nodes, (v) => `COMPREPLY=($(compgen -W ${sq(v.join(" "))} -- "$cur")); return 0`, "return 0", words)}
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _signet signet
`;
}

function zsh(root: Node): string {
  const nodes = all(root);
  /** `_describe` items, `name:description`, each single-quoted. */
  const items = (node: Node, dashes: boolean) => {
    const { subs, values, servers } = offers(node);
    const list = dashes
      ? node.flags.flatMap((f) => f.names.map((n) => `${n}:${brief(f.description)}`))
      : [...subs.map((s) => `${last(s.path)}:${brief(s.description)}`), ...values];
    return `items=(${list.map(sq).join(" ")}${!dashes && servers ? ' ${(f)"$(_signet_servers $words[1])"}' : ""})`;
  };
  return `#compdef signet
# zsh completion for signet, generated by \`signet completion zsh\`. Load it from ~/.zshrc, after
# compinit:  source <(signet completion zsh)
# or save it as _signet in a directory of your $fpath.
_signet_servers() {
  SIGNET_AUTOSTART=0 "$1" mcp list --json 2>/dev/null | ${SERVERS_SED}
}
_signet() {
  local cmd=signet cur=$words[CURRENT] prev=$words[CURRENT-1] w i
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    w=$words[i]
    # After --, the words are another program's command line.
    if [[ $w == -- ]]; then _files; return; fi
    [[ $w == -* ]] && continue
${stepCase(nodes)}
  done
${candidates(nodes, (v) => `compadd -- ${v.join(" ")}; return`, "_files; return", items)}
  if (( $#items )); then _describe -t commands signet items; else _files; fi
}
# Autoloaded from $fpath, this file is _signet's body: define it, then run it. Sourced, register it.
if [[ $funcstack[1] == _signet ]]; then _signet "$@"; else compdef _signet signet; fi
`;
}

/** fish's single quotes escape only `\\` and `'`. */
const fq = (s: string) => `'${s.replace(/[\\']/g, "\\$&")}'`;

function fish(root: Node): string {
  const nodes = all(root);
  const lines: string[] = [];
  for (const node of nodes) {
    const when = `-n ${fq(`__signet_at ${fq(node.path)}`)}`;
    const { subs, values, servers } = offers(node);
    for (const sub of subs) lines.push(`complete -c signet ${when} -a ${fq(last(sub.path))} -d ${fq(brief(sub.description))}`);
    if (values.length > 0) lines.push(`complete -c signet ${when} -a ${fq(values.join(" "))}`);
    if (servers) lines.push(`complete -c signet ${when} -a '(__signet_servers)' -d 'installed MCP server'`);
    for (const flag of node.flags) {
      const names = flag.names.map((n) => (n.startsWith("--") ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`)).join(" ");
      const value = flag.values ? ` -x -a ${fq(flag.values.join(" "))}` : flag.takesValue ? " -r -F" : "";
      lines.push(`complete -c signet ${when} ${names}${value} -d ${fq(brief(flag.description))}`);
    }
  }

  return `# fish completion for signet, generated by \`signet completion fish\`. Load it with
#   signet completion fish | source
# or save it as ~/.config/fish/completions/signet.fish.
function __signet_command
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmd signet
    for w in $words
        # After --, the words are another program's command line.
        test "$w" = --; and echo --; and return
        string match -q -- '-*' $w; and continue
        switch "$cmd:$w"
            case ${stepPairs(nodes).map(fq).join(" ")}
                set cmd "$cmd $w"
            case 'signet mcp:*'
                set cmd ${fq(SERVER_PATH)}
        end
    end
    echo $cmd
end
function __signet_at
    test (__signet_command) = "$argv[1]"
end
function __signet_servers
    set -l bin (commandline -opc)[1]
    env SIGNET_AUTOSTART=0 $bin mcp list --json 2>/dev/null | ${SERVERS_SED}
end
complete -c signet -f
${lines.join("\n")}
`;
}

const SHELLS: Record<(typeof SHELL_NAMES)[number], (root: Node) => string> = { bash, zsh, fish };

/** `tree` gives the command tree to describe: the root's, which cannot be imported from here without a cycle. */
export function completionCommand(tree: () => AnyCommand) {
  return defineCommand({
    meta: {
      name: "completion",
      description: COMMAND_DESCRIPTIONS.completion,
    },
    args: { shell: { type: "positional", description: "bash, zsh or fish", required: true } },
    async run({ args }) {
      const shell = args.shell as string;
      if (!Object.hasOwn(SHELLS, shell)) throw new UsageError(`unknown shell "${shell}": one of ${SHELL_NAMES.join(", ")}`);
      stdout().write(SHELLS[shell as keyof typeof SHELLS](await collect(tree(), "signet")));
    },
  });
}
