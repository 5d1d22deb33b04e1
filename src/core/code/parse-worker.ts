// A parsing thread of `signet index` (docs/code.md#where-it-runs): reads, parses and extracts the
// files the indexer sends, one at a time, and posts their facts back. Tree-sitter runs in WebAssembly
// on one thread, so the indexer runs a few of these side by side while it writes SQLite itself.
// scripts/build.ts compiles this file into the binary as a second entrypoint.
import { parseFile, type ParseJob } from "./parse-file";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ParseJob>) => {
  self.postMessage(await parseFile(event.data));
};
