// The one walker of a directory tree (src/core/files/walk.ts) and its .gitignore rules
// (src/core/files/gitignore.ts), as document sources (walkDirectory) and the code index
// (listSourceFiles) use it: real trees in a temp dir, each listing checked against git itself
// (`git ls-files --others --exclude-standard` and `git check-ignore`), links and named pipes.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { listSourceFiles } from "../../src/core/code/ignore";
import { languageOf } from "../../src/core/code/languages";
import { walkTree, type TreeEntry } from "../../src/core/files/walk";
import { walkDirectory } from "../../src/core/sources/walk";

const temp = realpathSync(mkdtempSync(join(tmpdir(), "signet-walk-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

// git with no global or system configuration: no core.excludesFile but the tree's own files.
const gitEnv = { ...process.env, HOME: temp, XDG_CONFIG_HOME: temp, GIT_CONFIG_NOSYSTEM: "1" };

function git(root: string, args: string[], stdin?: string): string {
  const r = Bun.spawnSync(["git", ...args], { cwd: root, env: gitEnv, stdin: stdin === undefined ? "ignore" : new Blob([stdin]) });
  // check-ignore exits 1 when nothing is ignored.
  if (r.exitCode !== 0 && !(args[0] === "check-ignore" && r.exitCode === 1)) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

let trees = 0;
/** A tree under the temp dir with `files` (path → content), as a git repository. */
function tree(files: Record<string, string>): string {
  const root = join(temp, `tree-${++trees}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  git(root, ["init", "-q"]);
  return root;
}

const sorted = (paths: string[]) => [...paths].sort();
const entries = (root: string) => [...walkTree(root, { skipDirs: new Set([".git"]), readIgnoreFile: (path) => readFileSync(path, "utf8") })];
/** The files git lists as neither tracked nor ignored, .gitignore files left out. */
const gitListing = (root: string) => sorted(git(root, ["ls-files", "-z", "--others", "--exclude-standard"]).split("\0").filter((p) => p !== "" && !p.endsWith(".gitignore")));

interface Case {
  /** .gitignore files by path. */
  ignores: Record<string, string>;
  files: string[];
  /** What git lists: written out, so a change in git's answer or ours shows. */
  listed: string[];
}

/** The rules every .gitignore relies on. */
const COMMON: Record<string, Case> = {
  "comments, unanchored at any depth, anchored, directory-only, negation, ** in a path": {
    ignores: { ".gitignore": "# c\n/build\n*.gen.ts\ncache/\n!keep.gen.ts\nsrc/**/tmp\n" },
    files: ["build/a.ts", "sub/build/b.ts", "a/b/x.gen.ts", "keep.gen.ts", "src/a/b/tmp/c.ts", "src/tmp/d.ts", "cache/e.ts", "x/cache/f.ts", "y/cache", "main.ts"],
    listed: ["keep.gen.ts", "main.ts", "sub/build/b.ts", "y/cache"],
  },
  "a pattern with a slash inside is anchored to its .gitignore's directory": {
    ignores: { ".gitignore": "*.log\ndocs/*.tmp\n!keep.log\n" },
    files: ["a.log", "deep/x/a.log", "keep.log", "docs/a.tmp", "src/docs/a.tmp", "docs/x/a.tmp", "readme.md"],
    listed: ["docs/x/a.tmp", "keep.log", "readme.md", "src/docs/a.tmp"],
  },
  "a nested .gitignore applies to its directory and below, and overrides the root's": {
    ignores: { ".gitignore": "*.gen.ts\n", "sub/.gitignore": "!keep.gen.ts\n/local.ts\nx/y.ts\n" },
    files: ["a.gen.ts", "sub/keep.gen.ts", "sub/x.gen.ts", "sub/local.ts", "sub/deep/local.ts", "local.ts", "sub/x/y.ts", "sub/z/x/y.ts", "x/y.ts"],
    listed: ["local.ts", "sub/deep/local.ts", "sub/keep.gen.ts", "sub/z/x/y.ts", "x/y.ts"],
  },
  "a higher .gitignore cannot re-include what a deeper one excludes": {
    ignores: { ".gitignore": "a/*.ts\n!a/keep.ts\n!top.ts\n", "a/.gitignore": "keep.ts\n", "b/.gitignore": "*.ts\n" },
    files: ["a/keep.ts", "a/x.ts", "b/top.ts", "top.ts"],
    listed: ["top.ts"],
  },
  "nothing inside an excluded directory is re-included": {
    ignores: { ".gitignore": "build/\n!build/keep.ts\n", "build/.gitignore": "!*.ts\n" },
    files: ["build/keep.ts", "build/x.ts"],
    listed: [],
  },
  "a directory re-included by a deeper .gitignore is judged by the lines on what is inside": {
    ignores: { ".gitignore": "out/\n*.log\n", "a/.gitignore": "!out/\n" },
    files: ["a/out/f.ts", "a/out/g.log", "out/h.ts", "b/out/i.ts"],
    listed: ["a/out/f.ts"],
  },
  "/dir/** with a negation keeps the directory and re-includes one file": {
    ignores: { ".gitignore": "foo/**\n!foo/keep.ts\n" },
    files: ["foo/keep.ts", "foo/drop.ts", "foo/sub/x.ts"],
    listed: ["foo/keep.ts"],
  },
  "escaped #, ! and trailing space; other trailing spaces dropped; case-sensitive": {
    ignores: { ".gitignore": "\\#a.ts\n\\!b.ts\nsp.ts\\ \nt.ts   \n*.TS\n" },
    files: ["#a.ts", "!b.ts", "sp.ts ", "sp.ts", "t.ts", "u.TS", "u.ts"],
    listed: ["sp.ts", "u.ts"],
  },
  "names with pattern characters in a nested .gitignore's path": {
    ignores: { "[x]/.gitignore": "*.ts\n!k.ts\n", "a*b/.gitignore": "/y.ts\n", "!n/.gitignore": "z.ts\n", "#h/.gitignore": "w.ts\n", "my dir/.gitignore": "x y.ts\n" },
    files: ["[x]/a.ts", "[x]/k.ts", "x/a.ts", "a*b/y.ts", "axb/y.ts", "!n/z.ts", "#h/w.ts", "my dir/x y.ts", "my dir/xy.ts"],
    listed: ["[x]/k.ts", "axb/y.ts", "my dir/xy.ts", "x/a.ts"],
  },
};

/** git's finer points, where a glob library or a hand-made matcher easily goes wrong. */
const FINER: Record<string, Case> = {
  "braces and extended globs are literal": {
    ignores: { ".gitignore": "*.{js,ts}\n@(a|b).py\n" },
    files: ["a.ts", "b.{js,ts}", "c.js", "a.py", "@(a|b).py"],
    listed: ["a.py", "a.ts", "c.js"],
  },
  "** inside a name does not cross a slash": {
    ignores: { ".gitignore": "a**b.ts\n" },
    files: ["ab.ts", "axb.ts", "a/x/b.ts"],
    listed: ["a/x/b.ts"],
  },
  "*** fills a segment as ** does": {
    ignores: { ".gitignore": "a/***/b.ts\n" },
    files: ["a/b.ts", "a/x/y/b.ts", "c.ts"],
    listed: ["c.ts"],
  },
  "POSIX classes in brackets": {
    ignores: { ".gitignore": "f[[:digit:]].ts\n" },
    files: ["f1.ts", "fa.ts"],
    listed: ["fa.ts"],
  },
  "] first in brackets is a member, \\] escapes one": {
    ignores: { ".gitignore": "[]a]x.ts\n[\\]]y.ts\n" },
    files: ["]x.ts", "ax.ts", "bx.ts", "]y.ts", "ay.ts"],
    listed: ["ay.ts", "bx.ts"],
  },
  "a trailing tab is part of the pattern": {
    ignores: { ".gitignore": "a.ts\t\n" },
    files: ["a.ts", "a.ts\t"],
    listed: ["a.ts"],
  },
  "a byte order mark does not join the first pattern": {
    ignores: { ".gitignore": "\uFEFFa.ts\r\nb.ts\r\n", "s/.gitignore": "\uFEFFc.ts\r\n" },
    files: ["a.ts", "b.ts", "s/c.ts", "s/d.ts"],
    listed: ["s/d.ts"],
  },
  "a deeper !dir/ does not undo a higher line on what is inside": {
    ignores: { ".gitignore": "**/x/**\n", "a/.gitignore": "!x/\n" },
    files: ["a/x/f.ts", "x/h.ts", "y.ts"],
    listed: ["y.ts"],
  },
  "a pattern ending in a lone backslash matches nothing": {
    ignores: { ".gitignore": "a.ts\\\n" },
    files: ["a.ts", "a.ts\\"],
    listed: ["a.ts", "a.ts\\"],
  },
};

describe.each([
  ["common", COMMON],
  ["finer points", FINER],
] as const)("the rules against git (%s)", (_, cases) => {
  test.each(Object.entries(cases))("%s", async (_name, { ignores, files, listed }) => {
    const root = tree({ ...ignores, ...Object.fromEntries(files.map((f) => [f, "x\n"])) });
    const fromGit = gitListing(root);
    expect(fromGit).toEqual(sorted(listed));
    // check-ignore names each ignored file: every file is either listed or ignored.
    const ignored = sorted(git(root, ["check-ignore", "-z", "--stdin"], files.join("\0")).split("\0").filter(Boolean));
    expect(sorted([...ignored, ...fromGit])).toEqual(sorted(files));

    const walked = entries(root).flatMap((e) => (e.kind === "entry" && e.dirent.name !== ".gitignore" ? [e.relative] : []));
    expect(sorted(walked)).toEqual(fromGit);
    expect((await walkDirectory(root, null)).files.map((f) => f.relative).sort()).toEqual(fromGit);
    expect(listSourceFiles(root).map((f) => f.path)).toEqual(fromGit.filter((p) => languageOf(p)));
  });
});

describe("the walk", () => {
  test("depth first in name order, directories never listed, skipped names left out below the root only", () => {
    const root = tree({ "b.ts": "", "a/z.ts": "", "a/node_modules/m.js": "", "a.ts": "", "node_modules/n.js": "" });
    const walked = [...walkTree(join(root, "node_modules"), { skipDirs: new Set(["node_modules"]), readIgnoreFile: () => null })];
    expect(walked.map((e) => (e as TreeEntry).relative)).toEqual(["n.js"]);
    const all = [...walkTree(root, { skipDirs: new Set([".git", "node_modules"]), readIgnoreFile: () => null })];
    expect(all.map((e) => (e as TreeEntry).relative)).toEqual(["a/z.ts", "a.ts", "b.ts"]);
  });

  test("links are handed over, never entered: a loop, a link to itself and one to the parent end the walk", async () => {
    const root = tree({ "d/f.ts": "export const f = 1;\n" });
    symlinkSync("..", join(root, "d", "up"));
    symlinkSync("self", join(root, "d", "self"));
    symlinkSync("b", join(root, "a"));
    symlinkSync("a", join(root, "b"));
    const walked = entries(root).map((e) => (e.kind === "entry" ? [e.relative, e.dirent.isSymbolicLink()] : e.kind));
    expect(walked).toEqual([
      ["a", true],
      ["b", true],
      ["d/f.ts", false],
      ["d/self", true],
      ["d/up", true],
    ]);
    expect(listSourceFiles(root).map((f) => f.path)).toEqual(["d/f.ts"]);
    const { files, skipped } = await walkDirectory(root, null);
    expect(files.map((f) => f.relative)).toEqual(["d/f.ts"]);
    expect(skipped).toEqual([
      { path: join(root, "a"), reason: "a symbolic link loop" },
      { path: join(root, "b"), reason: "a symbolic link loop" },
      { path: join(root, "d", "self"), reason: "a symbolic link loop" },
      { path: join(root, "d", "up"), reason: "a symbolic link to a directory (links to directories are not followed)" },
    ]);
  });

  test("a named pipe is handed over as what it is, never opened: the code index leaves it out, sources report it", async () => {
    const root = tree({ "a.ts": "export const a = 1;\n" });
    mkfifo(join(root, "pipe.ts"));
    const pipe = entries(root).find((e) => e.kind === "entry" && e.relative === "pipe.ts") as TreeEntry;
    expect(pipe.dirent.isFIFO()).toBe(true);
    expect(listSourceFiles(root).map((f) => f.path)).toEqual(["a.ts"]);
    const { skipped } = await walkDirectory(root, null);
    expect(skipped).toEqual([{ path: join(root, "pipe.ts"), reason: "a named pipe, not a regular file" }]);
  });

  test("a root that cannot be read is reported, not thrown", async () => {
    const gone = join(temp, "gone");
    expect([...walkTree(gone, { skipDirs: new Set(), readIgnoreFile: () => null })].map((e) => [e.kind, e.path])).toEqual([["unreadable", gone]]);
    expect(await walkDirectory(gone, null)).toEqual({ files: [], skipped: [{ path: gone, reason: "cannot read the directory (ENOENT)" }], unlisted: [] });
    expect(listSourceFiles(gone)).toEqual([]);
  });

  test("a .gitignore that cannot be read leaves its directory out, with the reason", () => {
    const root = tree({ "a.ts": "", "sub/b.ts": "" });
    writeFileSync(join(root, "sub", ".gitignore"), "x");
    const walked = [
      ...walkTree(root, {
        skipDirs: new Set([".git"]),
        readIgnoreFile: () => {
          throw new Error("unreadable");
        },
      }),
    ];
    expect(walked.map((e) => (e.kind === "entry" ? e.relative : [e.kind, e.path]))).toEqual(["a.ts", ["ignore-file", join(root, "sub", ".gitignore")]]);
  });

  test("the code index reads a .gitignore as a source does: a named pipe or a link out of the project leaves its folder out, and the listing ends", () => {
    const root = tree({ "a.ts": "", "pipe/b.ts": "", "out/c.ts": "", "in/d.ts": "", "rules": "d.ts\n" });
    mkfifo(join(root, "pipe", ".gitignore"));
    writeFileSync(join(temp, "outside-rules"), "# nothing excluded\n");
    symlinkSync(join(temp, "outside-rules"), join(root, "out", ".gitignore"));
    symlinkSync(join(root, "rules"), join(root, "in", ".gitignore"));
    // In a child process: reading a named pipe would block this one for good.
    const script = `import { listSourceFiles } from ${JSON.stringify(join(import.meta.dir, "../../src/core/code/ignore.ts"))};
console.log(JSON.stringify(listSourceFiles(${JSON.stringify(root)}).map((f) => f.path)));`;
    const r = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", timeout: 20_000 });
    expect(r.signalCode ?? r.stderr.toString()).toBe("");
    expect(JSON.parse(r.stdout.toString())).toEqual(["a.ts"]);
  });
});

function mkfifo(path: string): void {
  const r = Bun.spawnSync(["mkfifo", path]);
  if (r.exitCode !== 0) throw new Error(`mkfifo ${path}: ${r.stderr.toString()}`);
}
