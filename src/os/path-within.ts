// Whether one absolute path lies in another, compared as written: callers resolve links first.

/** `path` is `root` or below it; both absolute and without links. */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}
