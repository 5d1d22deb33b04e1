// Which files of a source directory are left out besides what its .gitignore files exclude
// (docs/api.md#sources): directories that are never documents (VCS metadata, dependencies, caches)
// and binary files by extension.

/** Directory names skipped at any depth below a source's root. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
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

export function hasBinaryExtension(name: string): boolean {
  const dot = name.lastIndexOf(".");
  return dot > 0 && BINARY_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}
