// The tree-sitter runtime (web-tree-sitter) and the prebuilt grammars (@vscode/tree-sitter-wasm),
// imported `with { type: "file" }` so the build embeds them (gzipped; readEmbeddedFile inflates
// them): the binary parses code with no file beside it and no external program (docs/code.md#parsing).
import { Language, Parser } from "web-tree-sitter";
import { readEmbeddedFile } from "../../os/embedded-file";
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

/**
 * The compiled WebAssembly modules by file, one compile per process. Threads that parse post them to
 * each other (parse-pool.ts): JavaScriptCore then shares the machine code, including the optimized
 * tier it compiles once the parser is hot, instead of compiling it again on every thread (about half
 * a second of CPU per thread on this repository).
 */
const modules = new Map<string, Promise<WebAssembly.Module>>();

function compiled(file: string): Promise<WebAssembly.Module> {
  let module = modules.get(file);
  if (!module) {
    module = readEmbeddedFile(file).then((bytes) => WebAssembly.compile(bytes));
    modules.set(file, module);
    module.catch(() => modules.delete(file));
  }
  return module;
}

/**
 * The runtime's and `ids`' compiled modules, keyed by file, to post to another thread. One that does
 * not compile is left out: the thread that needs it tries again and names the failure per file.
 */
export async function compiledModules(ids: LanguageId[]): Promise<Record<string, WebAssembly.Module>> {
  const files = [runtimeWasm, ...ids.map((id) => GRAMMAR_FILES[id])];
  const modules: Record<string, WebAssembly.Module> = {};
  for (const [i, result] of (await Promise.allSettled(files.map(compiled))).entries()) {
    if (result.status === "fulfilled") modules[files[i]!] = result.value;
  }
  return modules;
}

/** Uses modules another thread compiled (compiledModules) instead of compiling them here. */
export function useCompiledModules(given: Record<string, WebAssembly.Module>): void {
  for (const [file, module] of Object.entries(given)) if (!modules.has(file)) modules.set(file, Promise.resolve(module));
}

let runtime: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();

function initRuntime(): Promise<void> {
  runtime ??= compiled(runtimeWasm).then(
    (module) =>
      new Promise<void>((resolve, reject) => {
        Parser.init({
          // Emscripten's hook for a module compiled elsewhere; its callback takes the instance first.
          instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
            WebAssembly.instantiate(module, imports).then((instance) => done(instance, module), reject);
            return {};
          },
        }).then(resolve, reject);
      }),
  );
  return runtime;
}

/** The grammar for `id`, loaded once per process. */
export function loadLanguage(id: LanguageId): Promise<Language> {
  let pending = languages.get(id);
  if (!pending) {
    pending = initRuntime().then(async () => Language.loadSync(await compiled(GRAMMAR_FILES[id])));
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
