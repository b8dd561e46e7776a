import { canonicalText } from '../../memory/canonical.js';
import type { Embedder } from '../../ports/embedder.js';

/** 32-bit FNV-1a: a fast, stable hash, so the same text embeds the same everywhere. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Word unigrams weigh most; bigrams carry order; character trigrams catch inflections and typos. */
const WEIGHTS = { word: 1, bigram: 0.5, trigram: 0.3 } as const;

function features(text: string): [string, number][] {
  const words = canonicalText(text).split(' ').filter(Boolean);
  const out: [string, number][] = [];
  words.forEach((word, i) => {
    out.push([`w:${word}`, WEIGHTS.word]);
    const next = words[i + 1];
    if (next) out.push([`b:${word} ${next}`, WEIGHTS.bigram]);
    const padded = `^${word}$`;
    for (let j = 0; j + 3 <= padded.length; j += 1) out.push([`c:${padded.slice(j, j + 3)}`, WEIGHTS.trigram]);
  });
  return out;
}

/**
 * The offline embedder of DESIGN §6: canonical text, hashed word and character n-grams,
 * L2-normalised. Deterministic, no weights to download; lexical, so it finds restatements and
 * shared words, not paraphrases.
 */
export class LocalEmbedder implements Embedder {
  readonly name: string;

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error('local embedder needs at least 8 dimensions');
    this.name = `local-lexical-v1/${dimensions}`;
  }

  async embed(text: string): Promise<number[]> {
    const vector = new Array<number>(this.dimensions).fill(0);
    const found = features(text);
    // Text without words (only punctuation) still needs a direction for cosine distance.
    if (found.length === 0) found.push(['empty', 1]);
    for (const [feature, weight] of found) {
      const hash = fnv1a(feature);
      const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
      const index = hash % this.dimensions;
      vector[index] = (vector[index] ?? 0) + sign * weight;
    }
    const norm = Math.hypot(...vector);
    // Colliding features of opposite sign could cancel out; a zero vector has no cosine distance.
    if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
    return vector.map((v) => v / norm);
  }
}
