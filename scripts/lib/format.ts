// Number formatting and markdown tables for the benchmark reports.

export const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : "n/a");
export const int = (v: number) => Math.round(v).toLocaleString("en-US");
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
export const kbMib = (kb: number | null) => (kb === null ? "n/a" : `${(kb / 1024).toFixed(1)} MiB`);
export const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
export const secs = (millis: number) => `${(millis / 1000).toFixed(1)} s`;

/** "1h02m", "3m05s", "42s": for ETAs and long phases. */
export function duration(millis: number): string {
  if (!Number.isFinite(millis) || millis < 0) return "?";
  const s = Math.round(millis / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** A markdown table; `align` per column: "l" (default) or "r". */
export function markdownTable(head: string[], rows: string[][], align: ("l" | "r")[] = []): string {
  const rule = head.map((_, i) => (align[i] === "r" ? "---:" : "---"));
  return [`| ${head.join(" | ")} |`, `|${rule.join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
