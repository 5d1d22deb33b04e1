// A temporary copy of test/fixtures/code-project (indexing writes <project>/.graphiq), with the files
// its .gitignore and the default rules must leave out: git would not keep those in the fixture itself.
import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const FIXTURE = resolve(import.meta.dir, "../fixtures/code-project");

export function codeProjectCopy(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "signet-code-")));
  const project = join(root, "project");
  cpSync(FIXTURE, project, { recursive: true });
  mkdirSync(join(project, "generated"));
  writeFileSync(join(project, "generated", "skip.ts"), "export function generatedOnly(): number {\n  return 424242;\n}\n");
  mkdirSync(join(project, "node_modules", "dep"), { recursive: true });
  writeFileSync(join(project, "node_modules", "dep", "index.js"), "export function fromDependency() {\n  return 'dependency-only';\n}\n");
  return project;
}

/** Every signet_code_* tool with arguments that fit the project codeProjectCopy makes. */
export const CODE_TOOL_CALLS = [
  ["signet_code_search", { query: "store" }],
  ["signet_code_context", { symbol: "openStore" }],
  ["signet_code_blast", { symbol: "openStore" }],
  ["signet_code_status", {}],
  ["signet_code_doctor", {}],
  ["signet_code_constants", {}],
  ["signet_code_clear", { confirm: true }],
  ["signet_code_briefing", {}],
] as const;
