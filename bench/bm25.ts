import { canonicalText } from '../lambda/memory/canonical.js';

export interface Bm25Options {
  readonly k1?: number;
  /** Length normalisation: 0.75 in plain BM25, 0 for none. */
  readonly b?: number;
  /** The words of a text; with `presenceOnly` each counts once. Default: canonical words. */
  readonly terms?: (text: string) => string[];
  readonly presenceOnly?: boolean;
}

const canonicalWords = (text: string) => canonicalText(text).split(' ').filter(Boolean);

/**
 * Okapi BM25 over a fixed set of documents, in memory. With no options it is plain BM25 (k1 = 1.2,
 * b = 0.75, term frequencies, canonical words, no stop words, no stemming): the keyword baseline
 * recall is measured against, over the same texts the endpoint stores. Options give the variants
 * `npm run tune:recall` weighs for the lexical arm.
 */
export class Bm25 {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly averageLength: number;
  private readonly k1: number;
  private readonly b: number;
  private readonly terms: (text: string) => string[];

  constructor(
    documents: readonly { id: string; text: string }[],
    private readonly options: Bm25Options = {},
  ) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.terms = options.terms ?? canonicalWords;
    this.docs = documents.map((d) => {
      const words = this.words(d.text);
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return { id: d.id, tf, length: words.length };
    });
    this.averageLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  private words(text: string): string[] {
    const all = this.terms(text);
    return this.options.presenceOnly ? [...new Set(all)] : all;
  }

  /** Ids of the best `k` documents, best first (documents sharing no word are never returned). */
  search(query: string, k = Number.POSITIVE_INFINITY): string[] {
    const terms = [...new Set(this.terms(query))];
    const n = this.docs.length;
    return this.docs
      .map((d) => {
        let score = 0;
        for (const term of terms) {
          const f = d.tf.get(term);
          if (!f) continue;
          const df = this.df.get(term) ?? 0;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          score += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * d.length) / this.averageLength));
        }
        return { id: d.id, score };
      })
      .filter((d) => d.score > 0)
      .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1))
      .slice(0, k)
      .map((d) => d.id);
  }
}
