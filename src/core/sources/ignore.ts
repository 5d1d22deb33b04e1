// Which files of a source directory are left out (docs/api.md#sources): directories that are never
// documents (VCS metadata, dependencies, caches), binary files by extension, and .gitignore rules
// (a subset of git's: `#` comments, `!` negation, a trailing `/` for directories only, a `/` inside
// the pattern anchoring it to the .gitignore's directory, `*`, `?`, `[...]` and `**`).

/** Directory names skipped at any depth below a source's root. */
const SKIPPED_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "__pycache__",
  ".venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".next",
  ".turbo",
]);

/** Extensions of files that are never text: skipped without being read. */
const BINARY_EXTENSIONS = new Set(
  (
    "png jpg jpeg gif webp ico bmp tif tiff avif heic psd zip gz tgz bz2 xz zst 7z rar jar war class so dylib dll exe o a " +
    "obj lib wasm bin dat db sqlite sqlite3 mp3 mp4 m4a mov avi mkv webm wav flac ogg woff woff2 ttf otf eot pyc pyo lockb node"
  ).split(" "),
);

export function isSkippedDir(name: string): boolean {
  return SKIPPED_DIRS.has(name);
}

export function hasBinaryExtension(name: string): boolean {
  const dot = name.lastIndexOf(".");
  return dot > 0 && BINARY_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

interface Rule {
  glob: InstanceType<typeof Bun.Glob>;
  negated: boolean;
  dirOnly: boolean;
}

/** The rules of one .gitignore, matched against paths relative to its directory. */
export class IgnoreRules {
  private readonly rules: Rule[] = [];

  constructor(text: string) {
    for (const raw of text.split(/\r?\n/)) {
      let line = raw.replace(/(?<!\\)\s+$/, "");
      if (line === "" || line.startsWith("#")) continue;
      const negated = line.startsWith("!");
      if (negated) line = line.slice(1);
      if (line.startsWith("\\")) line = line.slice(1);
      const dirOnly = line.endsWith("/");
      if (dirOnly) line = line.slice(0, -1);
      if (line === "") continue;
      // A slash at the start or in the middle anchors the pattern; otherwise it matches at any depth.
      const anchored = line.includes("/");
      const pattern = anchored ? line.replace(/^\//, "") : `**/${line}`;
      this.rules.push({ glob: new Bun.Glob(pattern), negated, dirOnly });
    }
  }

  /** true: ignored, false: re-included by a negation, undefined: no rule says. The last match wins. */
  verdict(relativePath: string, isDir: boolean): boolean | undefined {
    let verdict: boolean | undefined;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (rule.glob.match(relativePath)) verdict = !rule.negated;
    }
    return verdict;
  }
}
