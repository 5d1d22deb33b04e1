// What this process holds open, read from /proc/self/fd (Linux).
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** The paths of this process's open files that `keep` accepts (a descriptor closed while listing is skipped). */
export function openFilePaths(keep: (path: string) => boolean): string[] {
  return readdirSync("/proc/self/fd")
    .map((fd) => {
      try {
        return readlinkSync(join("/proc/self/fd", fd));
      } catch {
        return "";
      }
    })
    .filter((path) => path !== "" && keep(path));
}
