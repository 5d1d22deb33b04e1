// A parsing thread of `signet index` (docs/code.md#where-it-runs): takes files from the run's shared
// counter and posts each file's facts as soon as they are ready (a post reaches the calling thread at
// once, even while this loop runs). The facts travel as JSON text: the structured clone of the same
// objects cost this thread five times as much. scripts/build.ts compiles this file into the binary
// as a second entrypoint.
import { useCompiledModules } from "./grammars";
import { parseShare, type ParseShare } from "./parse-file";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<ParseShare>) => {
  useCompiledModules(event.data.modules);
  await parseShare(event.data, (result) => self.postMessage(JSON.stringify(result)));
};
