// Where a sandboxed job starts (src/os/sandbox.ts): the sandbox replaces /tmp and the hidden paths,
// so a directory under them is not there inside it; bubblewrap would refuse to start the job.
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sandboxArgv } from "../../src/os/sandbox";
import { tempDir } from "../helpers/temp-cleanup";

const chdirOf = (argv: string[]) => argv[argv.indexOf("--chdir") + 1];
const bwrap = { bwrap: "/usr/bin/bwrap" };

test("a directory the sandbox replaces becomes /, one it keeps or binds stays", () => {
  const home = join(tempDir(), "home"); // under the system's /tmp, which the sandbox replaces
  mkdirSync(home);
  expect(chdirOf(sandboxArgv(bwrap, { hide: [], writable: [], cwd: home }, ["true"]))).toBe("/");
  expect(chdirOf(sandboxArgv(bwrap, { hide: [], writable: [home], cwd: home }, ["true"]))).toBe(home);
  expect(chdirOf(sandboxArgv(bwrap, { hide: [], writable: [], cwd: "/usr" }, ["true"]))).toBe("/usr");
  expect(chdirOf(sandboxArgv(bwrap, { hide: ["/usr"], writable: [], cwd: "/usr/lib" }, ["true"]))).toBe("/");
  // A prefix of a name is not a parent: /usrx is not under /usr.
  expect(chdirOf(sandboxArgv(bwrap, { hide: ["/usr"], writable: [], cwd: "/usrx" }, ["true"]))).toBe("/usrx");
});
