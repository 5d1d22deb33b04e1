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
  // Allow one trailing slash ("http://host:3850/") since it carries no path.
  const authority = rest.endsWith("/") ? rest.slice(0, -1) : rest;
  if (authority.includes("@")) throw new DaemonUrlError(raw, "credentials are not allowed in the URL");
  if (authority.includes("/")) throw new DaemonUrlError(raw, "a path is not allowed");
  if (authority.includes("?")) throw new DaemonUrlError(raw, "a query string is not allowed");
  if (authority.includes("#")) throw new DaemonUrlError(raw, "a fragment is not allowed");
  const hostPort = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!hostPort) {
    if (SHELL_META.test(authority)) throw new DaemonUrlError(raw, "it contains characters that are not allowed in a host");
    throw new DaemonUrlError(raw, "the host is not a valid hostname or IP address");
  }
  const host = hostPort[1]!.toLowerCase();
  if (host.startsWith(".") || host.endsWith(".") || host.includes("..")) {
    throw new DaemonUrlError(raw, "the host is not a valid hostname");
  }
  let portPart = "";
  if (hostPort[2] !== undefined) {
    const port = Number(hostPort[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new DaemonUrlError(raw, "the port must be 1-65535");
    portPart = `:${port}`;
  }
  return `${proto}://${host}${portPart}`;
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
