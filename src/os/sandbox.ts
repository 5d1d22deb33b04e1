// Running a command in a bubblewrap sandbox (Linux): new user, PID, IPC, UTS and cgroup namespaces,
// a read-only view of the file system with some paths replaced by empty directories, and a private
// /tmp, /dev and /proc. The network namespace is shared: what a
// sandboxed command is for is usually reaching a service.
//
// Why each piece: the PID namespace gives the command a /proc that shows only its own processes
// (no other process's environment or working directory) and ends every process it starts, detached
// or not, when its first process exits (the kernel kills a namespace with its init); the hidden
// paths keep files out of reach; the read-only view keeps it from changing what later runs as the
// account (a shell profile, an installed binary); a private /tmp and a hidden /run/user keep it from
// the account's other processes' socket files there (a terminal multiplexer, the session bus).
// Abstract Unix sockets (X11's @/tmp/.X11-unix/X0) are named in the network namespace, not the file
// system: the shared namespace leaves them reachable (docs/security.md#jobs).
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { isWithin } from "./path-within";

export interface Sandbox {
  /** The bubblewrap executable. */
  bwrap: string;
}

export type SandboxProbe = { sandbox: Sandbox } | { sandbox: null; reason: string };

export interface SandboxSpec {
  /** Replaced by empty, read-only directories (resolved through links, so another name for them is hidden too). */
  hide: string[];
  /** Bound read-write over the read-only view. */
  writable: string[];
  cwd: string;
}

const NAMESPACES = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
// The command is the namespace's first process itself, the child bubblewrap waits for: with
// bubblewrap's own init in between, that init outlives bubblewrap by a moment and is handed to the
// nearest subreaper (the daemon) every time. Being init, the command gets from inside the namespace
// only the signals it handles: a shell's `kill $$` leaves it running (docs/security.md#jobs).
const AS_INIT = "--as-pid-1";
/** The sandbox's own /tmp, empty and private, over the host's. */
const PRIVATE_TMP = "/tmp";
/** The descriptor bubblewrap writes `{"child-pid": N}` to (sandboxArgv's `infoFd`). */
export const INFO_FD = 3;

/**
 * The host pid of the sandbox's first process, from what bubblewrap wrote to INFO_FD: when
 * bubblewrap is killed, that process is handed to the nearest subreaper, which must collect it.
 */
export function sandboxChildPid(info: string): number | null {
  try {
    const pid = (JSON.parse(info) as { "child-pid"?: unknown })["child-pid"];
    return Number.isSafeInteger(pid) && (pid as number) > 1 ? (pid as number) : null;
  } catch {
    return null;
  }
}

function findOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

const realOrSelf = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/**
 * The argv that runs `command` inside the sandbox. Start it with the command's whole environment as
 * its own: bubblewrap passes that on unchanged, while values given on its command line would show in
 * every account's `ps`. With `info`, bubblewrap writes its child's pid to INFO_FD (a pipe to open).
 */
export function sandboxArgv(sandbox: Sandbox, spec: SandboxSpec, command: string[], info = false): string[] {
  const args = [sandbox.bwrap, ...NAMESPACES, AS_INIT, ...(info ? ["--info-fd", String(INFO_FD)] : []), "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", PRIVATE_TMP];
  const uid = process.getuid?.();
  if (uid !== undefined && existsSync(`/run/user/${uid}`)) args.push("--tmpfs", `/run/user/${uid}`);
  for (const path of spec.writable) args.push("--bind", realOrSelf(path), realOrSelf(path));
  const hidden = new Set(spec.hide.flatMap((p) => [p, realOrSelf(p)]).filter((p) => existsSync(p)));
  for (const path of hidden) args.push("--tmpfs", path, "--remount-ro", path);
  return [...args, "--chdir", cwdInside(spec, hidden), "--", ...command];
}

/**
 * The command's directory inside the sandbox: a directory under what the sandbox replaces (its own
 * empty /tmp, a hidden path) is not there, so the job starts in / instead (a HOME under /tmp, as in
 * a throwaway account, would otherwise stop every job before it ran).
 */
function cwdInside(spec: SandboxSpec, hidden: Set<string>): string {
  const cwd = realOrSelf(spec.cwd);
  const bound = spec.writable.some((w) => isWithin(cwd, realOrSelf(w)));
  const replaced = isWithin(cwd, PRIVATE_TMP) || isWithin(cwd, realOrSelf(PRIVATE_TMP)) || [...hidden].some((h) => isWithin(cwd, h));
  return replaced && !bound ? "/" : spec.cwd;
}

/**
 * Whether bubblewrap is here and works: it is looked for on `path`, then in /usr/bin, and one
 * `true` is run in a sandbox (a kernel without unprivileged user namespaces fails there).
 */
export function probeSandbox(path: string | undefined): SandboxProbe {
  if (process.platform !== "linux") return { sandbox: null, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const bwrap = findOnPath("bwrap", path) ?? (existsSync("/usr/bin/bwrap") ? "/usr/bin/bwrap" : null);
  if (!bwrap) return { sandbox: null, reason: "bubblewrap (bwrap) is not installed" };
  const sandbox = { bwrap };
  const [cmd, ...args] = sandboxArgv(sandbox, { hide: [], writable: [], cwd: "/" }, ["/bin/true"]);
  const r = spawnSync(cmd!, args, { env: {}, stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
  if (r.status === 0) return { sandbox };
  const said = r.error?.message ?? r.stderr?.toString().trim() ?? `exit ${r.status}`;
  return { sandbox: null, reason: `${bwrap} does not run here: ${said || `exit ${r.status}`}` };
}
