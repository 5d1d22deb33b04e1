// Every repository path the documentation cites must exist, so the docs cannot drift from the tree
// unnoticed (`npm run lint` runs this). Checked in README.md, docs/ and the READMEs under src/:
//   - relative Markdown links, `[text](path#anchor)`, from the page's own folder;
//   - code spans that name a file with a path, `src/core/recall/service.ts` or `core/recall/service.ts`
//     (from the repository's root, from src/, or from the page's folder);
//   - code spans that name a source file alone, `fusion.ts`: some tracked file has that name.
// Exit 0 when every one exists; otherwise each missing one with its page and line, exit 1.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ROOT } from "./lib/daemon";

const tracked = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter(Boolean);
const names = new Set(tracked.map((f) => basename(f)));
const pages = tracked.filter((f) => f === "README.md" || (f.startsWith("docs/") && f.endsWith(".md")) || (f.startsWith("src/") && f.endsWith("README.md")));

/** Source files named in a code span; data-directory files (agent.yaml, AGENTS.md) are not the repository's. */
const SOURCE = /^[\w.@-]+\.(ts|tsx|mjs|cjs|js|sh)$/;
/** A path: two or more segments, naming a file (an extension) or a folder (a trailing slash), not a pattern like `server/tool`. */
const PATH = /^\.?[\w@-][\w.@-]*(\/[\w.@-]+)*(\/[\w@-]+\.\w+|\/)$/;
const TOP = new Set(tracked.map((f) => f.split("/")[0]!));
const SRC_TOP = new Set(tracked.filter((f) => f.startsWith("src/")).map((f) => f.split("/")[1]!));

function exists(candidates: string[]): boolean {
  return candidates.some((c) => existsSync(join(ROOT, c)));
}

const missing: string[] = [];
for (const page of pages) {
  const dir = dirname(page);
  const text = await Bun.file(join(ROOT, page)).text();
  let fenced = false;
  text.split("\n").forEach((line, i) => {
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced) return;
    const at = `${page}:${i + 1}`;
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
      const path = target!.split("#")[0]!;
      if (!exists([join(dir, path)])) missing.push(`${at}: link to ${path}`);
    }
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      const name = span!;
      if (PATH.test(name) && !name.includes("..")) {
        const first = name.split("/")[0]!;
        // Only paths that start in the tree (src/, scripts/, core/...): not /usr/bin, ~/.agents or .daemon/.
        if (!TOP.has(first) && !SRC_TOP.has(first)) continue;
        if (!exists([name, join("src", name), join(dir, name)])) missing.push(`${at}: ${name}`);
      } else if (SOURCE.test(name) && !names.has(name)) {
        missing.push(`${at}: ${name} (no file of that name)`);
      }
    }
  });
}

if (missing.length > 0) {
  console.error(`${missing.length} path(s) the documentation cites do not exist (fix the page, or the path):`);
  for (const m of missing) console.error(`  ${m}`);
  process.exit(1);
}
console.log(`docs: every cited path exists (${pages.length} pages)`);
