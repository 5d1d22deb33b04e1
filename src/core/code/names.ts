// Identifiers split into the words they are made of, for search (docs/code.md#the-tools):
// `parseHTTPRequest` → parse http request, `MAX_BODY_BYTES` → max body bytes. The splitting is
// recall's (core/recall/text.ts), so memories and code agree on what a word of an identifier is.
import { identifierParts as splitWord, WORD } from "../recall/text";

/** The lower-case parts of every word in `text` (an identifier, a path, a query). */
export function identifierParts(text: string): string[] {
  return (text.match(WORD) ?? []).flatMap((word) => {
    const parts = splitWord(word);
    return parts.length > 0 ? parts : [word.toLowerCase()];
  });
}
