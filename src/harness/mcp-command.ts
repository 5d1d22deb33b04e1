// Which signet-mcp a harness entry names: an absolute path, so the harness starts the installed
// binary whatever PATH it was started with (GUI launchers and services often have a short one).
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { MCP_COMMAND } from "./types";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The signet-mcp beside the running binary (`besideDir`, when it is the compiled one), else the
 * first on PATH, as an absolute path; undefined when there is none. Links are kept as they are:
 * signet-mcp is a link to signet, and the name is what makes it the MCP server.
 */
export function findMcpCommand(env: Record<string, string | undefined>, besideDir: string | undefined): string | undefined {
  const beside = besideDir === undefined ? undefined : resolve(besideDir, MCP_COMMAND);
  if (beside !== undefined && executable(beside)) return beside;
  const found = Bun.which(MCP_COMMAND, { PATH: env.PATH ?? "" });
  return found ? resolve(found) : undefined;
}
