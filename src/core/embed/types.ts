export interface Embedder {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** Where an HTTP provider is reached; recorded with its model (models.ts) so its vectors stay usable. */
  readonly baseUrl?: string;
  /** False while a model that runs on this machine waits for its first text to be loaded (lazy.ts). */
  readonly loaded?: boolean;
  /** `query`: a recall waits for it, so it goes before background work where the provider can tell. */
  embed(texts: string[], options?: { priority?: "query" | "background" }): Promise<Float32Array[]>;
  /**
   * Whether the calling thread is busy with other work meanwhile (a recall's keyword leg): a provider
   * computing on this machine's cores may then use fewer threads. Optional.
   */
  callerBusy?(busy: boolean): void;
  /**
   * The size of this model's vectors already stored: an answer of another size is then a failure.
   * For a provider that otherwise learns the size from its first answer (HTTP ones without
   * embedding.dimensions). Optional.
   */
  expectDimensions?(dimensions: number): void;
  /** Cancels the requests in flight, and any later ones, at once (the worker is stopping). Optional. */
  abort?(): void;
  close(): Promise<void>;
}

/**
 * The provider refused the input itself (HTTP 400, 413 or 422): the same texts will never succeed,
 * so the worker narrows the batch down to the text at fault instead of retrying it forever.
 */
export class EmbedRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbedRejectedError";
  }
}
