// Identifiers split into the words they are made of, for search (docs/code.md#the-tools):
// `parseHTTPRequest` → parse http request, `MAX_BODY_BYTES` → max body bytes. The splitting is
// the search engine's (core/search/text.ts), so memories and code agree on what a word of an identifier is.
import { identifierParts as splitWord, WORD } from "../search/text";

/** The lower-case parts of every word in `text` (an identifier, a path, a query). */
export function identifierParts(text: string): string[] {
  // A loop, not flatMap: the indexer calls this for every symbol (see short-run-jit.ts).
  const out: string[] = [];
  for (const word of text.match(WORD) ?? []) {
    const parts = splitWord(word);
    if (parts.length > 0) out.push(...parts);
    else out.push(word.toLowerCase());
  }
  return out;
}
