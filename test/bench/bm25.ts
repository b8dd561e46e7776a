import { canonicalText } from '../../lambda/memory/canonical.js';

/**
 * Plain Okapi BM25 (k1 = 1.2, b = 0.75, term frequencies, no stop words, no stemming) over
 * canonical words: the keyword baseline recall is measured against, computed in memory over the
 * same texts the endpoint stores.
 */
export class Bm25 {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    documents: readonly { id: string; text: string }[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = documents.map((d) => {
      const words = Bm25.words(d.text);
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return { id: d.id, tf, length: words.length };
    });
    this.averageLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  static words(text: string): string[] {
    return canonicalText(text).split(' ').filter(Boolean);
  }

  /** Ids of the best `k` documents, best first (documents sharing no word are never returned). */
  search(query: string, k: number): string[] {
    const terms = [...new Set(Bm25.words(query))];
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
