// Words and name rules the contracts declare, in a module without zod: a short command names them in
// its help or checks a name before it asks for anything (`signet message`, `signet token`, `signet
// secret`), and loading zod to build the schemas around them would cost it most of its start
// (docs/benchmarks.md#cli-start). The schemas take them from here.

export const MESSAGE_TYPES = ["assist_request", "decision_update", "info", "question"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const ROLES = ["admin", "operator", "agent", "readonly"] as const;

/** The permissions that only read (auth.ts READ_PERMISSIONS): what a route needing one does changes nothing. */
export const READ_NEEDS: ReadonlySet<string> = new Set(["recall", "sessions-read", "analytics-read"]);

/** Names are environment-variable shaped, so a bare name is also a valid reference and env name. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const SECRET_NAME_RULE = "1-128 letters, digits and _, not starting with a digit";

/**
 * What a session key cannot be: it travels in a path segment and in the x-signet-session-key header,
 * where a control character cannot be sent and "." or ".." is read as a directory step.
 */
export function sessionKeyProblem(key: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(key)) return "cannot hold a control character (a line break, a tab, …)";
  if (key === "." || key === "..") return 'cannot be "." or ".."';
  return null;
}
