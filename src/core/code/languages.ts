// Which files are code, and in which language (docs/code.md#languages).
import { extname } from "node:path";
import type { LanguageId } from "./grammars";

const BY_EXTENSION: Record<string, LanguageId> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
};

export function languageOf(path: string): LanguageId | undefined {
  if (path.endsWith(".d.ts")) return "typescript";
  return BY_EXTENSION[extname(path).toLowerCase()];
}
