import { type BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { EmbedderError } from '../../memory/errors.js';
import { checkedEmbedding } from '../embedding-check.js';
import type { Embedder } from '../../ports/embedder.js';
import { type CallPolicy, type CallTools, callWithRetry, realCallTools, toEmbedderError } from '../provider-call.js';
import { classifyBedrockError } from './classify.js';

/** The dimensions Titan Text Embeddings V2 can return. */
export const TITAN_DIMENSIONS: readonly number[] = [256, 512, 1024];

/** Titan V2's documented input limits. Words are a lower bound on tokens, so more words than tokens allowed is surely too long. */
export const TITAN_LIMITS = { characters: 50_000, tokens: 8192 } as const;

export interface TitanEmbedderSettings {
  readonly modelId: string;
  readonly dimensions: number;
  readonly policy: CallPolicy;
}

/** Text Titan cannot take; refused before any call, nothing stored. */
export class EmbeddingInputError extends EmbedderError {
  override name = 'EmbeddingInputError';
}

/** Refuses, before the call, text Titan would refuse anyway: empty, over 50,000 characters, or surely over 8,192 tokens. */
export function checkTitanInput(text: string): void {
  if (text.trim() === '') throw new EmbeddingInputError('Titan Text Embeddings V2 needs non-empty text; nothing was stored');
  const characters = [...text].length;
  if (characters > TITAN_LIMITS.characters) {
    throw new EmbeddingInputError(
      `the text is ${characters} characters; Titan Text Embeddings V2 accepts at most ${TITAN_LIMITS.characters}. Nothing was stored.`,
    );
  }
  const words = text.split(/\s+/).filter(Boolean).length;
  if (words > TITAN_LIMITS.tokens) {
    throw new EmbeddingInputError(
      `the text has ${words} words, more than the ${TITAN_LIMITS.tokens} tokens Titan Text Embeddings V2 accepts. Nothing was stored.`,
    );
  }
}

/** Reads Titan's answer: an `embedding` of finite numbers of exactly the configured dimension. */
function readEmbedding(body: string, dimensions: number): number[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new EmbedderError('Bedrock Titan answered with a body that is not JSON; nothing was stored', { cause: error });
  }
  return checkedEmbedding((parsed as { embedding?: unknown } | null)?.embedding, dimensions, 'Bedrock Titan');
}

/**
 * The production embedder of DESIGN §6: Titan Text Embeddings V2 over InvokeModel, normalised, in
 * the configured dimension. The client is built by the composition root with SDK retries off,
 * so the bounds of `policy` are the only ones.
 */
export class TitanEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;

  constructor(
    private readonly client: BedrockRuntimeClient,
    private readonly settings: TitanEmbedderSettings,
    private readonly tools: CallTools = realCallTools,
  ) {
    if (!TITAN_DIMENSIONS.includes(settings.dimensions)) {
      throw new EmbedderError(
        `Titan Text Embeddings V2 offers ${TITAN_DIMENSIONS.join(', ')} dimensions, not ${settings.dimensions}`,
      );
    }
    this.dimensions = settings.dimensions;
    this.name = `bedrock:${settings.modelId}/${settings.dimensions}`;
  }

  async embed(text: string): Promise<number[]> {
    checkTitanInput(text);
    const request = JSON.stringify({ inputText: text, dimensions: this.dimensions, normalize: true });
    let body: string;
    try {
      body = await callWithRetry(
        'Bedrock InvokeModel (Titan embeddings)',
        this.settings.policy,
        async (abortSignal) => {
          const command = new InvokeModelCommand({
            modelId: this.settings.modelId,
            contentType: 'application/json',
            accept: 'application/json',
            body: request,
          });
          const response = await this.client.send(command, { abortSignal });
          return response.body.transformToString('utf8');
        },
        classifyBedrockError,
        this.tools,
      );
    } catch (error) {
      throw toEmbedderError(error);
    }
    return readEmbedding(body, this.dimensions);
  }
}
