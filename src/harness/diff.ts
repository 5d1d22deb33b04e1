// A unified diff of two versions of a config file, for `signet setup --dry-run`.

type Op = { kind: " " | "-" | "+"; line: string };

function lines(text: string | null): string[] {
  if (text === null || text === "") return [];
  const out = text.split("\n");
  if (out[out.length - 1] === "") out.pop();
  return out;
}

/** Line edit script: common prefix and suffix, then an LCS of the middle (or replace-all when huge). */
function editScript(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const ops: Op[] = a.slice(0, pre).map((line) => ({ kind: " ", line }));
  const n = am.length;
  const m = bm.length;
  if (n * m > 4_000_000) {
    for (const line of am) ops.push({ kind: "-", line });
    for (const line of bm) ops.push({ kind: "+", line });
  } else {
    // lcs[i][j] = length of the LCS of am[i..] and bm[j..]
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = am[i] === bm[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        ops.push({ kind: " ", line: am[i]! });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
        ops.push({ kind: "-", line: am[i]! });
        i++;
      } else {
        ops.push({ kind: "+", line: bm[j]! });
        j++;
      }
    }
  }
  for (const line of a.slice(a.length - suf)) ops.push({ kind: " ", line });
  return ops;
}

/** `--- a` / `+++ b` headers and `@@` hunks with `context` lines around each change; "" when equal. */
export function unifiedDiff(path: string, before: string | null, after: string | null, context = 3): string {
  if (before === after) return "";
  const ops = editScript(lines(before), lines(after));
  const out = [`--- ${before === null ? "/dev/null" : path}`, `+++ ${after === null ? "/dev/null" : path}`];
  const changed = ops.map((op, i) => (op.kind === " " ? -1 : i)).filter((i) => i >= 0);
  let k = 0;
  while (k < changed.length) {
    const first = changed[k]!;
    let last = first;
    while (k + 1 < changed.length && changed[k + 1]! - last <= 2 * context + 1) last = changed[++k]!;
    k++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    let aStart = 1;
    let bStart = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== "+") aStart++;
      if (op.kind !== "-") bStart++;
    }
    const hunk = ops.slice(from, to);
    const aLen = hunk.filter((op) => op.kind !== "+").length;
    const bLen = hunk.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${aLen === 0 ? aStart - 1 : aStart},${aLen} +${bLen === 0 ? bStart - 1 : bStart},${bLen} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line.replace(/\r$/, "")}`);
  }
  if (changed.length === 0) out.push("@@ line endings or the final newline differ @@");
  return `${out.join("\n")}\n`;
}
