// Everyday English words: the lower-case whole words among the builtin model's 8,000 SentencePiece
// pieces (4,346 of them: "life", "work", "game", "apple", "express"), a general vocabulary chosen by
// frequency. Names of people, places and tools are rarely among them ("postgres", "docker", "boston",
// "dana" are not), so extraction takes such a word written in lower case, or opening a sentence, for
// the word rather than for an entity of the same name (extract.ts).
import { readVocabulary } from "../embed/builtin/vocabulary";

const WORD_PIECE = /^\u2581([a-z]+)$/;

let loading: Promise<ReadonlySet<string>> | undefined;

/** The everyday words, read once per process. */
export function everydayWords(): Promise<ReadonlySet<string>> {
  loading ??= readVocabulary().then((pieces) => {
    const words = new Set<string>();
    for (const [piece] of pieces) {
      const m = WORD_PIECE.exec(piece);
      if (m) words.add(m[1]!);
    }
    return words;
  });
  return loading;
}
