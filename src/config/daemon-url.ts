// SIGNET_DAEMON_URL must be an origin and nothing else: a value with a path, credentials or shell
// syntax is a mistake (or an attack on generated hook commands), never something to "fix" quietly.

export class DaemonUrlError extends Error {
  constructor(value: string, problem: string) {
    super(`invalid daemon URL ${JSON.stringify(value)}: ${problem}; expected an origin such as http://127.0.0.1:3850`);
    this.name = "DaemonUrlError";
  }
}

const SHELL_META = /[\s;&|`$<>(){}\\'"!*?\[\]^~,]/;

/** Validates an origin and returns it normalized as `scheme://host[:port]` (no trailing slash). */
export function parseDaemonUrl(value: string): string {
  const raw = value;
  if (raw.length === 0) throw new DaemonUrlError(raw, "it is empty");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(raw);
  if (!scheme) throw new DaemonUrlError(raw, "it has no http:// or https:// scheme");
  const proto = scheme[1]!.toLowerCase();
  if (proto !== "http" && proto !== "https") throw new DaemonUrlError(raw, `scheme "${proto}" is not http or https`);
  const rest = raw.slice(scheme[0].length);
  const cut = rest.search(/[/?#]/);
  const authority = cut === -1 ? rest : rest.slice(0, cut);
  const tail = cut === -1 ? "" : rest.slice(cut);
  // A lone trailing slash carries no path ("http://host:3850/"); anything else after the authority is refused.
  const afterSlash = tail.startsWith("/") ? tail.slice(1) : tail;
  if (tail.startsWith("/") && afterSlash.length > 0 && !/^[?#]/.test(afterSlash)) {
    throw new DaemonUrlError(raw, "a path is not allowed");
  }
  if (afterSlash.startsWith("?")) throw new DaemonUrlError(raw, "a query string is not allowed");
  if (afterSlash.startsWith("#")) throw new DaemonUrlError(raw, "a fragment is not allowed");
  if (authority.includes("@")) throw new DaemonUrlError(raw, "credentials are not allowed in the URL");
  const split = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority);
  const hostText = split?.[1] ?? authority;
  const portText = split?.[2];
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(hostText)) {
    if (hostText === "") throw new DaemonUrlError(raw, "the host is missing");
    if (SHELL_META.test(hostText)) throw new DaemonUrlError(raw, "it contains characters that are not allowed in a host");
    throw new DaemonUrlError(raw, "the host is not a valid hostname or IP address");
  }
  const host = hostText.toLowerCase();
  if (host.startsWith(".") || host.endsWith(".") || host.includes("..")) {
    throw new DaemonUrlError(raw, "the host is not a valid hostname");
  }
  let portPart = "";
  if (portText !== undefined) {
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) {
      if (SHELL_META.test(portText)) throw new DaemonUrlError(raw, "it contains characters that are not allowed in a port");
      throw new DaemonUrlError(raw, "the port must be a number from 1 to 65535");
    }
    portPart = `:${port}`;
  }
  return `${proto}://${host}${portPart}`;
}

/** The host a client reaches a daemon bound to `bind` at: a wildcard bind at 127.0.0.1, an IPv6 address in brackets. */
export function reachableHost(bind: string): string {
  return bind === "0.0.0.0" || bind === "::" ? "127.0.0.1" : bind.includes(":") ? `[${bind}]` : bind;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `localhost` means 127.0.0.1 first; the client tries ::1 only when that is refused. */
export function loopbackCandidates(origin: string): string[] {
  const url = new URL(origin);
  if (url.hostname !== "localhost") return [origin];
  const port = url.port ? `:${url.port}` : "";
  return [`${url.protocol}//127.0.0.1${port}`, `${url.protocol}//[::1]${port}`];
}
