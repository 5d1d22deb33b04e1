// Realistic, distinct memory content for the benchmarks (deterministic for a given seed): short
// engineering facts, decisions, preferences, issues and rules over a shared vocabulary, plus
// natural-language questions over the same vocabulary for recall benchmarks.
import { normalizeContent } from "../../src/core/memory/normalize";

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const W = {
  subject: [
    "the build", "the test suite", "the auth middleware", "the migration runner", "the session cache", "the CLI parser",
    "the HTTP client", "the retry loop", "the embedding worker", "the release script", "the config loader", "the logger",
    "the websocket handler", "the job queue", "the rate limiter", "the search index", "the payment webhook", "the CI pipeline",
    "the docker image", "the linter", "the dashboard", "the sqlite pool", "the feature flag service", "the upload handler",
    "the cron scheduler", "the metrics exporter", "the GraphQL resolver", "the token refresher", "the backup job", "the router",
  ],
  verb: [
    "breaks", "times out", "leaks memory", "hangs", "retries forever", "drops requests", "returns stale data", "double-counts",
    "crashes", "slows down", "skips validation", "logs secrets", "deadlocks", "loses the cursor", "rejects valid input",
    "ignores the timeout", "swallows errors", "misreads the header", "truncates output", "races with shutdown",
  ],
  condition: [
    "when the payload exceeds 1 MiB", "under load from 8 clients", "after a daemon restart", "on macOS only", "with an empty config",
    "if the clock skews", "when the disk is full", "behind the corporate proxy", "on the first run after install",
    "when two agents write at once", "with unicode file names", "after the token expires", "with IPv6 localhost",
    "when WAL checkpoints run", "during a schema migration", "on arm64 runners", "when the network flaps", "with a cold cache",
  ],
  fix: [
    "pin the version", "add a busy timeout", "batch the inserts", "close the handle in finally", "use a prepared statement",
    "raise the limit", "retry with backoff", "move it behind a feature flag", "check the exit code", "normalize the path first",
    "stream the body instead", "cache the parsed config", "set keep-alive", "wrap it in a transaction", "validate with zod first",
    "read the pid file before signalling", "escape the shell argument", "fall back to polling", "index the column", "debounce it",
  ],
  pref: [
    "prefers tabs over spaces", "wants small focused commits", "uses bun instead of npm", "likes early returns", "avoids default exports",
    "asks for tests before merging", "writes commit messages in the imperative", "prefers explicit types on exports",
    "keeps functions under 40 lines", "reviews PRs in the morning", "wants errors a person can act on", "dislikes magic numbers",
    "prefers sqlite for local state", "runs the linter before pushing", "wants the README updated with every flag",
  ],
  person: ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Juno", "Kai", "Lena", "Mateo", "Noor", "Olu"],
  dir: ["src", "lib", "app", "pkg", "cmd", "internal", "server", "client", "core", "scripts", "test"],
  file: [
    "auth", "config", "daemon", "store", "router", "queue", "index", "cache", "parse", "main", "worker", "http", "db",
    "session", "hooks", "schema", "errors", "retry", "limits", "upload",
  ],
  ext: ["ts", "tsx", "go", "rs", "py", "sql", "sh", "yaml"],
  tool: ["bun", "vitest", "eslint", "tsc", "docker", "sqlite3", "git", "curl", "jq", "ripgrep", "prettier", "cargo", "pytest"],
  adj: ["flaky", "slow", "brittle", "noisy", "fragile", "surprising", "undocumented", "legacy", "duplicated", "unbounded"],
};
export const TYPES = ["fact", "fact", "fact", "decision", "preference", "learning", "issue", "rule", "event", "note"] as const;
export const PROJECTS = ["signet", "webapp", "billing-service", "infra", "mobile-app"] as const;
export const TAG_POOL = [
  "bug", "perf", "ci", "testing", "auth", "db", "sqlite", "api", "cli", "config", "deploy", "docs", "security",
  "refactor", "ux", "release", "flaky", "infra", "memory", "network",
];

/** A generator of remember request bodies (JSON text): distinct content, a type, importance, 0-3 tags, usually a project. */
export function makeGenerator(seed: number) {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const path = () => `${pick(W.dir)}/${pick(W.file)}${rnd() < 0.4 ? `-${pick(W.file)}` : ""}.${pick(W.ext)}`;
  const num = () => Math.floor(rnd() * 9000) + 100;
  const templates: (() => string)[] = [
    () => `${cap(pick(W.subject))} ${pick(W.verb)} ${pick(W.condition)}; ${pick(W.fix)} in ${path()} (line ${num()}).`,
    () => `${pick(W.person)} ${pick(W.pref)} and ${pick(W.pref)}, especially in ${path()}.`,
    () => `Decided to ${pick(W.fix)} for ${pick(W.subject)} after it ${pick(W.verb)} ${pick(W.condition)}.`,
    () => `Run \`${pick(W.tool)} ${pick(W.file)}\` before touching ${path()}: ${pick(W.subject)} is ${pick(W.adj)} and ${pick(W.verb)} ${pick(W.condition)}.`,
    () => `Issue #${num()}: ${pick(W.subject)} ${pick(W.verb)} ${pick(W.condition)}. Workaround: ${pick(W.fix)}, then ${pick(W.fix)}.`,
    () => `Learned that ${pick(W.subject)} in ${path()} is ${pick(W.adj)}; ${pick(W.person)} suggests we ${pick(W.fix)}.`,
    () => `Rule: never let ${pick(W.subject)} run ${pick(W.condition)} without a test; ${pick(W.fix)} and ${pick(W.fix)}.`,
    () => `Release ${1 + Math.floor(rnd() * 4)}.${Math.floor(rnd() * 30)}.${Math.floor(rnd() * 20)} shipped; ${pick(W.subject)} still ${pick(W.verb)} ${pick(W.condition)} per ${pick(W.person)}.`,
  ];
  // Every content is distinct after the daemon's own normalization, so dedupe never answers.
  const seen = new Set<string>();
  const sentence = (): string => {
    let content = pick(templates)();
    // Short ones get a second clause, long ones are cut at a word boundary: 60-200 characters.
    while (content.length < 60) content += ` Also ${pick(W.subject)} ${pick(W.verb)} ${pick(W.condition)}.`;
    if (content.length > 200) content = `${content.slice(0, 199).replace(/\s+\S*$/, "")}.`;
    return content;
  };
  return (): string => {
    let content = sentence();
    while (seen.has(normalizeContent(content))) content = sentence();
    seen.add(normalizeContent(content));
    const tags: string[] = [];
    const nTags = Math.floor(rnd() * 4); // 0-3 tags
    while (tags.length < nTags) {
      const t = pick(TAG_POOL);
      if (!tags.includes(t)) tags.push(t);
    }
    const body: Record<string, unknown> = {
      content,
      type: pick(TYPES),
      importance: Math.round(rnd() * 100) / 100,
      tags,
    };
    if (rnd() < 0.8) body.project = pick(PROJECTS);
    return JSON.stringify(body);
  };
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}


export interface RecallQuery {
  query: string;
  project?: string;
}

/**
 * Natural-language questions an agent would ask of such memories ("why does the job queue hang
 * after a daemon restart?"), distinct (so no query-vector cache answers), about 30% scoped to a
 * project. Deterministic for a given seed.
 */
export function makeQueryGenerator(seed: number): () => RecallQuery {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const file = () => `${pick(W.dir)}/${pick(W.file)}.${pick(W.ext)}`;
  const templates: (() => string)[] = [
    () => `why ${pick(W.subject)} ${pick(W.verb)} ${pick(W.condition)}`,
    () => `what did we decide about ${pick(W.subject)}?`,
    () => `how did we fix ${pick(W.subject)} when it ${pick(W.verb)}?`,
    () => `what does ${pick(W.person)} prefer for code review and commits?`,
    () => `does ${pick(W.person)} like ${pick(["tabs", "early returns", "small commits", "explicit types", "sqlite", "bun", "tests"])}?`,
    () => `what should I run before touching ${file()}?`,
    () => `known issues with ${pick(W.subject)} ${pick(W.condition)}`,
    () => `is there a workaround for ${pick(W.subject)} that ${pick(W.verb)}?`,
    () => `which release still had ${pick(W.subject)} problems?`,
    () => `rules about ${pick(W.subject)} and ${pick(TAG_POOL)}`,
    () => `${pick(W.adj)} code in ${pick(W.dir)}/${pick(W.file)}: what did we learn?`,
    () => `${pick(W.fix)} ${pick(W.subject)}`,
    () => `${pick(W.tool)} ${pick(W.file)} ${pick(TAG_POOL)} problem`,
  ];
  const seen = new Set<string>();
  return (): RecallQuery => {
    let query = pick(templates)();
    for (let tries = 0; seen.has(query); tries++) query = tries < 20 ? pick(templates)() : `${query} ${pick(TAG_POOL)}`;
    seen.add(query);
    return rnd() < 0.3 ? { query, project: pick(PROJECTS) } : { query };
  };
}
