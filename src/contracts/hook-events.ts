// The lifecycle events a harness reports (docs/api.md#hooks): the `:event` of the hooks' operation
// (HOOKS_API in contracts/session.ts), which answers any other event as no route.
export const HOOK_EVENTS = ["session-start", "user-prompt-submit", "session-end", "pre-compaction", "compaction-complete"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
