import type { Embedder } from '../ports/embedder.js';
import { EmbedderError, EmbeddingDimensionError } from './errors.js';

/**
 * Embeds and checks the response against the dimension invariant (DESIGN §6): any failure is a
 * clear error and nothing is stored; the client still holds the content.
 */
export async function embedChecked(embedder: Embedder, text: string): Promise<number[]> {
  let vector: number[];
  try {
    vector = await embedder.embed(text);
  } catch (error) {
    if (error instanceof EmbedderError) throw error;
    throw new EmbedderError('the embedding provider failed; nothing was stored, retry later', { cause: error, retryable: true });
  }
  if (vector.length !== embedder.dimensions) {
    throw new EmbeddingDimensionError(embedder.dimensions, vector.length, 'in an embedder response');
  }
  if (!vector.every(Number.isFinite)) throw new EmbedderError('the embedder returned a non-finite value; nothing was stored');
  return vector;
}
