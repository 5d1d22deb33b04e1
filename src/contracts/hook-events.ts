// The lifecycle events a harness reports, each `POST /api/hooks/<event>` (docs/api.md#hooks). Apart
// from the session contracts so that `signet hook`, which runs at every prompt, loads no schema it
// does not parse (docs/hooks.md#latency).
export const HOOK_EVENTS = ["session-start", "user-prompt-submit", "session-end", "pre-compaction", "compaction-complete"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
