// Stdio servers' paths: the daemon refuses what it could only resolve against its own directory,
// and anchorPaths resolves relative paths where they were written (`signet mcp add`, imports).
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/client/client";
import { anchorPaths, InstallServerRequestSchema } from "../../src/contracts/bridge";
import { parseInput } from "../../src/contracts/parse";
import { startTestDaemon } from "../helpers/daemon";

const install = (transport: Record<string, unknown>) => () =>
  parseInput(InstallServerRequestSchema, { name: "s", transport: { type: "stdio", ...transport } }, "install request");

describe("the install contract", () => {
  test("bare program names and absolute paths are accepted", () => {
    expect(install({ command: "npx", args: ["./relative-args-are-the-server's-business"] })().transport).toMatchObject({ command: "npx" });
    expect(install({ command: "/usr/bin/node", cwd: "/srv/app" })().transport).toMatchObject({ command: "/usr/bin/node", cwd: "/srv/app" });
  });

  test("a relative cwd is refused, naming the field", () => {
    for (const cwd of ["app", "./app", "../app", "~/app"]) {
      expect(install({ command: "node", cwd })).toThrow(
        "invalid install request: transport.cwd: must be an absolute path: the daemon cannot know what a relative one is relative to",
      );
    }
  });

  test("a relative command with a path separator is refused, naming the field", () => {
    for (const command of ["./server.js", "bin/server", "../x", " ./padded"]) {
      expect(install({ command })).toThrow(
        "invalid install request: transport.command: a relative path cannot be resolved by the daemon: give an absolute path, or a bare program name looked up on PATH",
      );
    }
  });
});

test("the daemon answers a relative cwd or command with 400 invalid_input naming the field, installing nothing", async () => {
  const d = await startTestDaemon();
  try {
    const client = d.client();
    for (const [transport, field] of [
      [{ type: "stdio", command: "node", cwd: "app" }, "transport.cwd"],
      [{ type: "stdio", command: "./server.js" }, "transport.command"],
    ] as const) {
      const err = await client.bridge.install({ name: "rel", transport }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 400, code: "invalid_input" });
      expect((err as ApiError).message).toContain(`${field}: `);
    }
    const installed = await client.bridge.install({ name: "abs", transport: { type: "stdio", command: "node", cwd: d.dataDir } });
    expect(installed.transport).toMatchObject({ cwd: d.dataDir });
    const err = await client.bridge.update("abs", { transport: { type: "stdio", command: "node", cwd: "." } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: "invalid_input" });
    expect((await client.bridge.list()).servers.map((s) => [s.name, s.transport])).toEqual([["abs", installed.transport]]);
  } finally {
    await d.stop();
  }
});

describe("anchorPaths", () => {
  test("without a cwd: the command with a separator and the ., .., ./ and ../ arguments against the base", () => {
    const t = { type: "stdio", command: "./bin/server", args: [".", "..", "./a.json", "../b", "--x=./c", "d/e", "/abs", "-"], env: {} };
    expect(anchorPaths(t, "/home/me/proj")).toEqual({
      type: "stdio",
      command: "/home/me/proj/bin/server",
      args: ["/home/me/proj", "/home/me", "/home/me/proj/a.json", "/home/me/b", "--x=./c", "d/e", "/abs", "-"],
      env: {},
    });
  });

  test("a relative cwd is made absolute against the base; the command and arguments are relative to that cwd", () => {
    expect(anchorPaths({ command: "../run", args: ["./in"], cwd: "tools" }, "/p")).toEqual({ command: "/p/run", args: ["/p/tools/in"], cwd: "/p/tools" });
    expect(anchorPaths({ command: "./run", args: [], cwd: "/srv" }, "/p")).toEqual({ command: "/srv/run", args: [], cwd: "/srv" });
  });

  test("bare names stay names looked up on PATH; fields of the wrong type are left for validation", () => {
    expect(anchorPaths({ command: "npx", args: ["-y", "pkg"] }, "/p")).toEqual({ command: "npx", args: ["-y", "pkg"] });
    expect(anchorPaths({ command: 7, args: "./x", cwd: "" }, "/p")).toEqual({ command: 7, args: "./x", cwd: "" });
  });
});
