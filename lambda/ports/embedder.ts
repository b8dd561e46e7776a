/** Turns text into a vector of a fixed dimension. Implementations: local, Bedrock Titan V2, OpenAI-compatible. */
export interface Embedder {
  /** Provider and model, for `naaba check` and curation_state. */
  readonly name: string;
  /** The dimension every returned vector must have. */
  readonly dimensions: number;
  /**
   * The cosine distance past which a memory is unrelated to a query, calibrated for this model on
   * data of its own (decision 0058): recall's relevance floor drops what only the vector arm found
   * beyond it. Absent when nobody has calibrated the model: then nothing is dropped.
   */
  readonly unrelatedBeyond?: number;
  embed(text: string): Promise<number[]>;
}
