// Which files of a project are indexed (docs/code.md#which-files): code files, minus what the
// project's .gitignore files exclude, minus node_modules, .git and .graphiq below the root. The root
// itself may be anywhere, inside node_modules too. Symbolic links are not followed.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { languageOf } from "./languages";

const ALWAYS_SKIPPED = new Set(["node_modules", ".git", ".graphiq"]);

interface Rule {
  regex: RegExp;
  negated: boolean;
  dirOnly: boolean;
}

/** A .gitignore glob as a regular expression over paths relative to the file's directory. */
function globToRegex(glob: string, anchored: boolean): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) out += "\\[";
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else if (c === "\\" && i + 1 < glob.length) out += `\\${glob[++i]}`;
    else out += /[.+^${}()|\]\\]/.test(c) ? `\\${c}` : c;
  }
  // Unanchored patterns match at any depth; a match on a directory covers what is inside it.
  return new RegExp(`^${anchored ? "" : "(?:.*/)?"}${out}(?:/.*)?$`);
}

export function parseGitignore(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    // A slash anywhere but at the end anchors the pattern to the .gitignore's directory.
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (line === "") continue;
    rules.push({ regex: globToRegex(line, anchored), negated, dirOnly });
  }
  return rules;
}

interface Scope {
  /** The directory of the .gitignore, relative to the root ("" for the root). */
  base: string;
  rules: Rule[];
}

/** True when the last rule matching `rel` excludes it. */
function ignored(scopes: Scope[], rel: string, isDir: boolean): boolean {
  let result = false;
  for (const scope of scopes) {
    const local = scope.base === "" ? rel : rel.slice(scope.base.length + 1);
    for (const rule of scope.rules) {
      // A dir-only rule (`name/`) matches a file only through a directory above it.
      const matches = rule.dirOnly && !isDir ? dirMatch(rule.regex, local) : rule.regex.test(local);
      if (!matches) continue;
      result = !rule.negated;
    }
  }
  return result;
}

/** Whether some directory on `path`'s way (not the file itself) matches. */
function dirMatch(regex: RegExp, path: string): boolean {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) if (regex.test(parts.slice(0, i).join("/"))) return true;
  return false;
}

export interface SourceFile {
  /** Relative to the root, with forward slashes. */
  path: string;
  size: number;
  mtimeMs: number;
}

/** The code files under `root` that are indexed, sorted by path. */
export function listSourceFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string, scopes: Scope[]) => {
    const rel = relative(root, dir).split(sep).join("/");
    let here = scopes;
    try {
      const rules = parseGitignore(readFileSync(join(dir, ".gitignore"), "utf8"));
      if (rules.length > 0) here = [...scopes, { base: rel, rules }];
    } catch {
      // no .gitignore here
    }
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable directory: nothing to index in it
    }
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED.has(entry.name) || ignored(here, path, true)) continue;
        walk(join(dir, entry.name), here);
      } else if (entry.isFile() && languageOf(entry.name) && !ignored(here, path, false)) {
        const stat = statSync(join(dir, entry.name));
        out.push({ path, size: stat.size, mtimeMs: stat.mtimeMs });
      }
    }
  };
  walk(root, []);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
