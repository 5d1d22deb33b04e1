// Why a new file cannot be made at a path, in the words every command that makes one uses (a
// backup, an export, a store copy): the errors its directory or its name explain.
import { dirname } from "node:path";

/** The reason for `code` (an errno name) when it is about where `path` goes; undefined otherwise. */
export function newFilePlaceProblem(path: string, code: string | undefined): string | undefined {
  switch (code) {
    case "ENOENT":
      return `cannot create ${path}: the directory ${dirname(path)} does not exist`;
    case "ENOTDIR":
      return `cannot create ${path}: ${dirname(path)} is not a directory`;
    case "ENAMETOOLONG":
      return `cannot create ${path}: the path or one of its names is too long`;
    default:
      return undefined;
  }
}
