declare module "*.sql" {
  const text: string;
  export default text;
}

// The builtin model's packed weights (scripts/gen-builtin-weights.ts), imported `with { type: "file" }` as a path inside the binary.
declare module "*.q8" {
  const path: string;
  export default path;
}

// tree-sitter's runtime and grammars (src/core/code/grammars.ts), imported `with { type: "file" }`.
declare module "*.wasm" {
  const path: string;
  export default path;
}

// Text written by a script and imported `with { type: "text" }` (src/mcp/tools-list-result.txt).
declare module "*.txt" {
  const text: string;
  export default text;
}
