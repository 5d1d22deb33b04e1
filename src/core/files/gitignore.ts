// git's .gitignore rules (docs/code.md#indexing) through the `ignore` package, which matches each
// pattern as git does. One rule set serves a whole tree: each .gitignore's lines are rebased onto the
// root (in `a/b/`, an unanchored `x` becomes `a/b/**/x`, an anchored `/x` or `x/y` becomes `a/b/x`
// or `a/b/x/y`) and follow its parents' lines. The last line that matches decides, so a deeper file
// overrides a higher one as in git, and a directory re-included below is judged by the lines that
// match what is inside it, not by the higher line that excluded it.
import ignore, { type Ignore } from "ignore";

/** Characters with a meaning in a pattern, escaped where a directory's name becomes part of one. */
const GLOB_CHARACTERS = /[\\*?[\]!#]/g;

/**
 * The rules of `parent` (none for the root) followed by those of the .gitignore `text` in the
 * directory `base`, relative to the root ("" for the root itself).
 */
export function withGitignore(parent: Ignore | null, base: string, text: string): Ignore {
  // Case-sensitive, as git is on Linux (core.ignorecase false); the package folds case by default.
  const rules = ignore({ ignorecase: false });
  if (parent) rules.add(parent);
  return rules.add(base === "" ? text : rebased(text, base));
}

/** The patterns of a .gitignore in `base`, made relative to the root. */
function rebased(text: string, base: string): string[] {
  const prefix = base.replace(GLOB_CHARACTERS, "\\$&");
  const patterns: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    if (raw.startsWith("#")) continue;
    let line = withoutTrailingSpaces(raw);
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    // Only a slash before the end anchors a pattern; a trailing one means "directories only".
    const body = line.endsWith("/") ? line.slice(0, -1) : line;
    if (body === "" || body === "/") continue;
    const rest = body.includes("/") ? line.replace(/^\//, "") : `**/${line}`;
    patterns.push(`${negated ? "!" : ""}${prefix}/${rest}`);
  }
  return patterns;
}

/** `line` without its trailing spaces, but for one escaped with a backslash (git's trim_trailing_spaces). */
function withoutTrailingSpaces(line: string): string {
  let firstSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === " ") {
      if (firstSpace === -1) firstSpace = i;
    } else {
      if (c === "\\") i++;
      firstSpace = -1;
    }
  }
  return firstSpace === -1 ? line : line.slice(0, firstSpace);
}
