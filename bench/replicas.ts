/**
 * In-memory replicas of recall's two arms and their fusion, for the tuning scripts: the lexical
 * arm as `lexicalArm` in recall-sql.ts scores (the neutral analyzer's terms with their
 * frequencies, a memory's length the sum of them, very common terms left out, each term's postings read
 * best first up to the depth in force), the offline
 * embedder's exact cosine ranking, and reciprocal rank fusion with the relevance floor.
 */
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { FUSION, LEXICAL, type LexicalScoring, lengthScaled } from '../lambda/memory/policy/ranking.js';
import type { Embedder } from '../lambda/ports/embedder.js';

const analyzer = new LexicalAnalyzer('neutral');

/** The lexical arm of one partition, in memory: the same postings, statistics and sum as `lexicalArm` in recall-sql.ts. */
export class LexicalReplica {
  private readonly postings = new Map<string, { id: string; tf: number; dl: number }[]>();
  private readonly n: number;
  readonly average: number;

  constructor(memories: readonly { id: string; content: string }[]) {
    let total = 0;
    for (const m of memories) {
      const tfs = analyzer.frequencies(m.content);
      const dl = [...tfs.values()].reduce((sum, f) => sum + f, 0);
      total += dl;
      for (const [term, tf] of tfs) this.postings.set(term, [...(this.postings.get(term) ?? []), { id: m.id, tf, dl }]);
    }
    this.n = memories.length;
    this.average = Math.max(total / Math.max(this.n, 1), 1);
  }

  /** The best `k` memories with at least one scored term, best first; the scoring defaults to the one in force. */
  search(query: string, scoring: LexicalScoring = LEXICAL, k = FUSION.depth): string[] {
    const { k1, b } = lengthScaled(scoring, this.average);
    const scores = new Map<string, number>();
    for (const term of analyzer.queryTerms(query)) {
      const list = this.postings.get(term) ?? [];
      const df = list.length;
      if (df === 0 || df > Math.max(scoring.commonDf, scoring.commonShare * this.n)) continue;
      const idf = Math.log(1 + (this.n - df + 0.5) / (df + 0.5));
      const read = [...list].sort((x, y) => y.tf - x.tf || x.dl - y.dl).slice(0, scoring.postingsPerTerm);
      for (const p of read) {
        const part = (p.tf * (k1 + 1)) / (p.tf + k1 * (1 - b + (b * p.dl) / this.average));
        scores.set(p.id, (scores.get(p.id) ?? 0) + idf * part);
      }
    }
    return [...scores.entries()]
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, k)
      .map((e) => e[0]);
  }
}

/** The dot product: cosine similarity of the unit vectors every embedder returns. */
export const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

/** The vector arm of one partition, in memory: exact cosine distance to the embedder's vectors. */
export class VectorReplica {
  /** Each memory's vector by id, as the arm compares them. */
  readonly vectors: ReadonlyMap<string, number[]>;

  private constructor(
    private readonly embedder: Embedder,
    private readonly rows: { id: string; vector: number[] }[],
  ) {
    this.vectors = new Map(rows.map((r) => [r.id, r.vector]));
  }

  static async of(memories: readonly { id: string; content: string }[], embedder: Embedder): Promise<VectorReplica> {
    // One at a time: a model-backed embedder holds every pending text's tensors at once otherwise.
    const rows: { id: string; vector: number[] }[] = [];
    for (const m of memories) rows.push({ id: m.id, vector: await embedder.embed(m.content) });
    return new VectorReplica(embedder, rows);
  }

  /** Nearest first, with cosine distances. */
  async search(query: string, k = 50): Promise<{ id: string; distance: number }[]> {
    const q = await this.embedder.embed(query);
    return this.rows
      .map((r) => ({ id: r.id, distance: 1 - dot(r.vector, q) }))
      .sort((x, y) => x.distance - y.distance || (x.id < y.id ? -1 : 1))
      .slice(0, k);
  }
}

/**
 * Reciprocal rank fusion as `recallSql` computes it, with the relevance floor: a memory only the
 * vector arm found is kept only within `farthest` distance of the query. Best first, with scores.
 */
export function fusedScores(
  vector: readonly { id: string; distance: number }[],
  lexical: readonly string[],
  farthest: number = Number.POSITIVE_INFINITY,
): [string, number][] {
  const scores = new Map<string, number>();
  for (const [i, id] of lexical.slice(0, FUSION.depth).entries()) scores.set(id, FUSION.lexicalWeight / (FUSION.k + i + 1));
  for (const [i, hit] of vector.slice(0, FUSION.depth).entries()) {
    const found = scores.get(hit.id);
    if (found === undefined && hit.distance > farthest) continue;
    scores.set(hit.id, (found ?? 0) + FUSION.vectorWeight / (FUSION.k + i + 1));
  }
  return best([...scores]);
}

/** Scored ids best first, ties by id, as the SQL orders them. */
export const best = (scored: [string, number][]): [string, number][] =>
  scored.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));

/**
 * The fused scores with the memories `steps` places away from each of the first ten hits in its
 * origin, each scored at `share` of the hit's score, a memory keeping its best score (what recall
 * does with `steps` [1, 2] and the share in force, decision 0081). A memory's place is the number
 * after the last colon of its id, its origin what comes before (`D3:7` is place 7 of `D3`); an id
 * of another shape has no followers.
 */
export function followingScores(
  scored: readonly [string, number][],
  share: number,
  steps: readonly number[],
): Map<string, number> {
  const scores = new Map(scored);
  for (const [id, score] of scored.slice(0, 10)) {
    const place = /^(.+):(\d+)$/.exec(id);
    if (!place) continue;
    for (const step of steps) {
      const next = `${place[1]}:${Number(place[2]) + step}`;
      scores.set(next, Math.max(scores.get(next) ?? 0, share * score));
    }
  }
  return scores;
}

/** {@link fusedScores}' ids alone. */
export function fuse(
  vector: readonly { id: string; distance: number }[],
  lexical: readonly string[],
  farthest: number = Number.POSITIVE_INFINITY,
): string[] {
  return fusedScores(vector, lexical, farthest).map((e) => e[0]);
}
