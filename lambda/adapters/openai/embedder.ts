import { EmbedderError } from '../../memory/errors.js';
import { checkedEmbedding } from '../embedding-check.js';
import type { Embedder } from '../../ports/embedder.js';
import { type CallPolicy, type CallTools, callWithRetry, realCallTools, toEmbedderError } from '../provider-call.js';
import { classifyHttpError, type OpenAiEndpoint, postJson } from './http.js';

export interface OpenAiEmbedderSettings {
  readonly model: string;
  /** The model's own output dimension; it must equal the schema's, since no `dimensions` parameter is sent. */
  readonly dimensions: number;
  readonly policy: CallPolicy;
}

/** The one embedding of a `/embeddings` answer: finite numbers, exactly the configured dimension. */
function readEmbedding(answer: unknown, dimensions: number): number[] {
  const data = (answer as { data?: unknown } | null)?.data;
  const embedding = Array.isArray(data) && data.length === 1 ? (data[0] as { embedding?: unknown } | null)?.embedding : undefined;
  return checkedEmbedding(embedding, dimensions, 'OpenAI-compatible embeddings');
}

/** Embeddings from any OpenAI-compatible server (OpenAI, Ollama, vLLM) over `POST {base}/embeddings`. */
export class OpenAiEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;

  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly settings: OpenAiEmbedderSettings,
    private readonly tools: CallTools = realCallTools,
  ) {
    this.dimensions = settings.dimensions;
    this.name = `openai:${settings.model}/${settings.dimensions}`;
  }

  async embed(text: string): Promise<number[]> {
    if (text.trim() === '') throw new EmbedderError('cannot embed empty text; nothing was stored');
    let answer: unknown;
    try {
      answer = await callWithRetry(
        'OpenAI-compatible embeddings',
        this.settings.policy,
        (signal) => postJson(this.endpoint, 'embeddings', { model: this.settings.model, input: text }, signal),
        classifyHttpError,
        this.tools,
      );
    } catch (error) {
      throw toEmbedderError(error);
    }
    return readEmbedding(answer, this.dimensions);
  }
}
