// A parsing thread of `signet index` (docs/code.md#where-it-runs): reads, parses and extracts the
// files of its share one after another, posting each file's facts as soon as they are ready (a post
// reaches the calling thread at once, even while this loop runs). Tree-sitter runs in WebAssembly
// on one thread, so the indexer may run a few of these side by side while it writes SQLite itself.
// scripts/build.ts compiles this file into the binary as a second entrypoint.
import type { LanguageId } from "./grammars";
import { parseFile, parserOf, type ParseJob } from "./parse-file";

declare const self: Worker;

/** Either the languages to load ahead (while the calling thread still hashes), or this thread's share. */
export type ParseWorkerMessage = { warm: LanguageId[] } | ParseJob[];

self.onmessage = async (event: MessageEvent<ParseWorkerMessage>) => {
  const message = event.data;
  if (!Array.isArray(message)) {
    // A grammar that fails to load fails its files later, each with the reason: nothing to say here.
    for (const language of message.warm) parserOf(language).catch(() => undefined);
    return;
  }
  for (const job of message) self.postMessage(await parseFile(job));
};
