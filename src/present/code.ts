// The code index's answers as text (docs/code.md#the-tools): what the signet_code_* tools give a
// model and what `signet code ... --pretty` prints.
import type {
  CodeBlastResponse,
  CodeBriefingResponse,
  CodeClearResponse,
  CodeConstantsResponse,
  CodeContextResponse,
  CodeDoctorResponse,
  CodeEdge,
  CodeSearchResponse,
  CodeStatusResponse,
  CodeSymbolRef,
} from "../contracts/code";

const where = (s: { path: string; startLine: number; endLine: number }) =>
  s.startLine === s.endLine ? `${s.path}:${s.startLine}` : `${s.path}:${s.startLine}-${s.endLine}`;
const qualified = (s: CodeSymbolRef) => (s.container ? `${s.container}.${s.name}` : s.name);
const label = (s: CodeSymbolRef) => `${s.kind} ${qualified(s)} (${where(s)})`;

function candidatesText(project: string, symbol: string, candidates: CodeSymbolRef[]): string {
  if (candidates.length === 0) return `No symbol named "${symbol}" in the index of ${project}. Try signet_code_search to find its exact name.`;
  return [
    `"${symbol}" names ${candidates.length} symbols in ${project}; ask again with one of these (Container.name or path:name):`,
    ...candidates.map((c) => `- ${label(c)}  ${c.path}:${c.name}`),
  ].join("\n");
}

export function searchText(r: CodeSearchResponse): string {
  if (r.hits.length === 0) return `No symbols match "${r.query}" in ${r.project}.`;
  const lines = [`${r.hits.length} symbols for "${r.query}" in ${r.project} (${r.tookMs} ms):`];
  for (const [i, h] of r.hits.entries()) {
    lines.push(`${i + 1}. ${label(h)} score ${h.score}`, ...h.snippet.split("\n").map((l) => `   ${l}`));
    if (h.debug) lines.push(`   score parts: ${Object.entries(h.debug).map(([k, v]) => `${k} ${Math.round(v * 1000) / 1000}`).join(", ")}`);
  }
  return lines.join("\n");
}

function edgeLine(e: CodeEdge, direction: "from" | "to"): string {
  const who = e.symbol ? label(e.symbol) : "(module level)";
  const ambiguous = e.ambiguous ? " [ambiguous: the name has other candidates]" : "";
  return `- ${e.kind} ${direction} ${who} at ${e.path}:${e.line}${ambiguous}`;
}

export function contextText(r: CodeContextResponse): string {
  if (!r.definition) return candidatesText(r.project, r.symbol, r.candidates ?? []);
  const d = r.definition;
  const lines = [`${label(d)}${d.exported ? ", exported" : ""} in ${r.project}${d.stale ? " (the file changed since it was indexed)" : ""}`];
  if (r.container) lines.push(`Container: ${label(r.container)}`);
  if (d.doc) lines.push(`Doc: ${d.doc}`);
  lines.push("", "Source:", d.source, "");
  lines.push(`Callers and references (${r.callers?.length ?? 0}):`, ...(r.callers ?? []).map((e) => edgeLine(e, "from")));
  lines.push(`Callees and references (${r.callees?.length ?? 0}):`, ...(r.callees ?? []).map((e) => edgeLine(e, "to")));
  lines.push(`Imports of ${d.path} (${r.imports?.length ?? 0}):`, ...(r.imports ?? []).map((i) => `- ${i.name === i.alias ? i.name : `${i.name} as ${i.alias}`} from ${i.source}`));
  return lines.join("\n");
}

export function blastText(r: CodeBlastResponse): string {
  if (!r.root) return candidatesText(r.project, r.symbol, r.candidates ?? []);
  const lines = [`Blast radius of ${label(r.root)} in ${r.project}: ${r.direction}, depth ${r.depth}: ${r.nodes.length} symbols in ${r.files.length} files (${r.tookMs} ms)`];
  for (const n of r.nodes) lines.push(`${"  ".repeat(n.depth)}${n.direction === "backward" ? "<-" : "->"} ${label(n)} (depth ${n.depth})`);
  if (r.ambiguousSkipped > 0) lines.push(`${r.ambiguousSkipped} ambiguous references not followed (the name has several candidates).`);
  return lines.join("\n");
}

export function statusText(r: CodeStatusResponse): string {
  const t = r.totals;
  const lines = [
    `Project: ${r.project}`,
    `Index: ${r.indexPath}`,
    `${t.files} files, ${t.symbols} symbols, ${t.edges} edges, ${t.imports} imports, ${t.literals} literals`,
    ...r.languages.map((l) => `- ${l.language}: ${l.files} files, ${l.symbols} symbols`),
  ];
  const run = r.lastRun;
  if (run) {
    lines.push(`Last run ${run.startedAt}: ${run.parsed} parsed, ${run.unchanged} unchanged, ${run.removed} removed, ${run.failed.length} failed, ${run.tookMs} ms`);
    for (const f of run.failed) lines.push(`  failed: ${f.path}: ${f.reason}`);
  } else lines.push("Never indexed (or cleared): run `signet index <path>`.");
  const s = r.stale;
  const stale = s.changed.length + s.added.length + s.removed.length;
  lines.push(stale === 0 ? "Up to date with the files on disk." : `Stale: ${s.changed.length} changed, ${s.added.length} new, ${s.removed.length} removed: run \`signet index ${r.project}\``);
  for (const [what, list] of [["changed", s.changed], ["new", s.added], ["removed", s.removed]] as const) {
    for (const p of list.slice(0, 20)) lines.push(`  ${what}: ${p}`);
  }
  return lines.join("\n");
}

export function doctorText(r: CodeDoctorResponse): string {
  const lines = [`Code index of ${r.project}: ${r.ok ? "healthy" : `${r.problems.length} problem(s)`}`];
  for (const c of r.checks) lines.push(`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`);
  for (const p of r.problems) lines.push(`Problem: ${p.problem}\n  Fix: ${p.fix}`);
  return lines.join("\n");
}

export function constantsText(r: CodeConstantsResponse): string {
  if (r.constants.length === 0) return `No literal is shared across files in ${r.project}.`;
  const lines = [`${r.constants.length} literals shared across files in ${r.project}:`];
  for (const c of r.constants) {
    lines.push(`- ${c.kind === "string" ? JSON.stringify(c.value) : c.value}: ${c.files} files, ${c.occurrences} uses`);
    for (const l of c.locations) lines.push(`    ${l.path}:${l.line}${l.symbol ? ` in ${l.symbol}` : ""}`);
  }
  return lines.join("\n");
}

export function clearText(r: CodeClearResponse): string {
  return `Cleared the code index of ${r.project}: graphiq.db and manifest.json deleted, an empty database left. Rebuild it with \`signet index ${r.project}\`.`;
}

export function briefingText(r: CodeBriefingResponse): string {
  const t = r.totals;
  const lines = [`Architecture of ${r.project}: ${t.files} files, ${t.symbols} symbols, ${t.edges} edges`, "", "Subsystems:"];
  for (const s of r.subsystems) {
    const links = s.links.map((l) => `${l.to} (${l.edges})`).join(", ");
    lines.push(`- ${s.folder}: ${s.files} files, ${s.symbols} symbols [${s.languages.join(", ")}]${links ? ` → ${links}` : ""}`);
  }
  lines.push("", "Public API (exported, used from most other files):", ...r.publicApi.map((s) => `- ${label(s)}: ${s.dependents} files`));
  lines.push("", "Hub symbols (most references in and out):", ...r.hubs.map((s) => `- ${label(s)}: ${s.incoming} in, ${s.outgoing} out`));
  return lines.join("\n");
}
