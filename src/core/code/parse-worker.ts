// A parsing thread of `signet index` (docs/code.md#where-it-runs): reads, parses and extracts the
// files of its share one after another, posting each file's facts as soon as they are ready (a post
// reaches the calling thread at once, even while this loop runs). Tree-sitter runs in WebAssembly
// on one thread, so the indexer may run a few of these side by side while it writes SQLite itself.
// scripts/build.ts compiles this file into the binary as a second entrypoint.
import { parseFile, type ParseJob } from "./parse-file";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ParseJob[]>) => {
  for (const job of event.data) self.postMessage(await parseFile(job));
};
