import { EmbedderError, EmbeddingDimensionError } from '../memory/errors.js';

/**
 * The shape every remote embedder's answer must have: an array of finite numbers of exactly the
 * configured dimension. Anything else is refused here, so nothing is stored from it.
 */
export function checkedEmbedding(value: unknown, dimensions: number, provider: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new EmbedderError(`${provider} answered without an embedding of finite numbers; nothing was stored`);
  }
  if (value.length !== dimensions) throw new EmbeddingDimensionError(dimensions, value.length, `in a ${provider} response`);
  return value as number[];
}
