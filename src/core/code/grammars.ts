// The tree-sitter runtime (web-tree-sitter) and the prebuilt grammars (@vscode/tree-sitter-wasm),
// imported `with { type: "file" }` so `bun build --compile` embeds them: the binary parses code with
// no file beside it and no external program (docs/code.md#parsing).
import { Language, Parser } from "web-tree-sitter";
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import goWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm" with { type: "file" };
import javascriptWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm" with { type: "file" };
import pythonWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm" with { type: "file" };
import rustWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm" with { type: "file" };
import tsxWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm" with { type: "file" };
import typescriptWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm" with { type: "file" };

export type LanguageId = "typescript" | "tsx" | "javascript" | "python" | "go" | "rust";

export const GRAMMAR_FILES: Record<LanguageId, string> = {
  typescript: typescriptWasm,
  tsx: tsxWasm,
  javascript: javascriptWasm,
  python: pythonWasm,
  go: goWasm,
  rust: rustWasm,
};

let runtime: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();

function initRuntime(): Promise<void> {
  runtime ??= Bun.file(runtimeWasm)
    .bytes()
    .then((wasmBinary) => Parser.init({ wasmBinary }));
  return runtime;
}

/** The grammar for `id`, loaded once per process. */
export function loadLanguage(id: LanguageId): Promise<Language> {
  let pending = languages.get(id);
  if (!pending) {
    pending = initRuntime().then(async () => Language.load(await Bun.file(GRAMMAR_FILES[id]).bytes()));
    languages.set(id, pending);
    // A failed load is not cached: doctor can try again and say what failed.
    pending.catch(() => languages.delete(id));
  }
  return pending;
}

/** A parser for `id`; callers keep one per language and reuse it. */
export async function parserFor(id: LanguageId): Promise<Parser> {
  const language = await loadLanguage(id);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}
