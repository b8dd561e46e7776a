import { canonicalText } from '../../memory/canonical.js';
import { MULTILINGUAL_STOP_WORDS } from '../../memory/stop-words.js';
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

/**
 * Whole words weigh most; character trigrams catch inflections and typos. Word bigrams (v1) were
 * dropped: on the LoCoMo development split they cost recall (docs/decisions/0038).
 */
const WEIGHTS = { word: 1, trigram: 0.3 } as const;

/** The words that carry the topic: stop words go, unless nothing else is left ("I am here"). */
function contentWords(text: string): string[] {
  const words = canonicalText(text).split(' ').filter(Boolean);
  const kept = words.filter((w) => !MULTILINGUAL_STOP_WORDS.has(w));
  return kept.length > 0 ? kept : words;
}

function features(text: string): [string, number][] {
  const out: [string, number][] = [];
  for (const word of contentWords(text)) {
    out.push([`w:${word}`, WEIGHTS.word]);
    const padded = `^${word}$`;
    for (let j = 0; j + 3 <= padded.length; j += 1) out.push([`c:${padded.slice(j, j + 3)}`, WEIGHTS.trigram]);
  }
  return out;
}

/**
 * The offline embedder of DESIGN §6: canonical text without stop words, hashed words and
 * character trigrams, L2-normalised. Deterministic, no weights to download; lexical, so it finds
 * restatements, shared words and shared word parts, not paraphrases. Its name carries a version:
 * vectors stored by another version must be rewritten (`naaba reembed`).
 */
export class LocalEmbedder implements Embedder {
  readonly name: string;
  /**
   * Invented words share character trigrams with real ones, so their nearest memories sit at
   * about 0.6 to 0.8; on LoCoMo dev every nonsense query's neighbours lay past 0.55, and a bound
   * this tight cost no question its evidence (`npm run tune:floor`, decision 0058).
   */
  readonly unrelatedBeyond = 0.55;

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error('local embedder needs at least 8 dimensions');
    this.name = `local-lexical-v2/${dimensions}`;
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
