// Three libc calls the runtime does not offer, through bun:ffi, on Linux only: prctl to make the
// daemon its descendants' reaper, waitpid on one pid, and poll to learn at once that nobody reads
// an output any more. Never waitpid(-1): that would collect the exit statuses of children the
// runtime spawned and waits for itself.
import { dlopen, FFIType, ptr } from "bun:ffi";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;
const LIBC_NAMES = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`];

function open() {
  for (const name of LIBC_NAMES) {
    try {
      return dlopen(name, {
        prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
        waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
        poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
      }).symbols;
    } catch {
      // not this libc
    }
  }
  return null;
}

let libc: ReturnType<typeof open> | undefined;
let subreaper = false;
function load(): ReturnType<typeof open> {
  if (libc === undefined) libc = process.platform === "linux" ? open() : null;
  return libc;
}

/**
 * Makes this process the parent of every orphan among its descendants (instead of init), so that a
 * process a bridged server detached stays in the daemon's tree. Returns why not when it cannot.
 */
export function becomeChildSubreaper(): string | undefined {
  const symbols = load();
  if (!symbols) return `no child subreaper on ${process.platform}: a process a bridged server detaches (setsid) may outlive it`;
  subreaper = symbols.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  if (subreaper) return undefined;
  return "prctl(PR_SET_CHILD_SUBREAPER) failed: processes bridged servers detach are adopted by init, not by the daemon";
}

/** True once becomeChildSubreaper succeeded: every orphan among this process's descendants is its child. */
export function isChildSubreaper(): boolean {
  return subreaper;
}

/** Collects the status of `pid`, this process's child, if it has exited; true once collected. */
export function reapChild(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0 && load()?.waitpid(pid, null, WNOHANG) === pid;
}

const POLLERR = 0x008;
const POLLHUP = 0x010;
const POLLNVAL = 0x020;
// struct pollfd { int fd; short events; short revents; }: no events asked (errors and hang-ups come unasked).
const pollFds = new Int32Array(2);
const pollRevents = new Int16Array(pollFds.buffer, 6, 1);

/**
 * Whether nobody reads `fd` any more: the reading end of its pipe closed (`| head -1` is done), or
 * its terminal hung up. The kernel says so to poll(2) at once (POLLERR, POLLHUP), where a write
 * would find out only with the next thing there is to write. False where libc cannot be reached.
 */
export function readerGone(fd: number): boolean {
  const symbols = load();
  if (!symbols) return false;
  pollFds[0] = fd;
  pollFds[1] = 0;
  return symbols.poll(ptr(pollFds), 1, 0) === 1 && (pollRevents[0]! & (POLLERR | POLLHUP | POLLNVAL)) !== 0;
}
