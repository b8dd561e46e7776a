/** Turns text into a vector of a fixed dimension. Implementations: local, Bedrock Titan V2, OpenAI-compatible. */
export interface Embedder {
  /** Provider and model, for `naaba check` and curation_state. */
  readonly name: string;
  /** The dimension every returned vector must have. */
  readonly dimensions: number;
  embed(text: string): Promise<number[]>;
}
