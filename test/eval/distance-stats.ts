/** Distance arithmetic for eval:distance: cosine distance, quantiles, and the best a single threshold can do. */

export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  // A zero vector is as far from everything as it can be, not NaN.
  return 1 - dot / (Math.sqrt(na * nb) || 1);
}

/** The q-quantile of sorted values (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export interface ThresholdResult {
  readonly recallTarget: number;
  /** Merge when distance <= threshold. */
  readonly threshold: number;
  readonly recall: number;
  /** Share of pairs that differ or contradict which the threshold would merge. */
  readonly falseMerge: number;
  /** Share of contradicting pairs alone which it would merge. */
  readonly contradictionsMerged: number;
}

const shareAtOrBelow = (sorted: readonly number[], t: number) => {
  let n = 0;
  while (n < sorted.length && (sorted[n] ?? Number.POSITIVE_INFINITY) <= t) n += 1;
  return sorted.length === 0 ? 0 : n / sorted.length;
};

/**
 * The best any single threshold can do at a merge recall of at least `recallTarget`: merging is
 * "distance <= t", the false-merge rate only grows with t, so the smallest t that reaches the
 * recall is the best one.
 */
export function bestThreshold(
  same: readonly number[],
  notSame: readonly number[],
  contradictions: readonly number[],
  recallTarget: number,
): ThresholdResult {
  const threshold = quantile(same, recallTarget);
  return {
    recallTarget,
    threshold,
    recall: shareAtOrBelow(same, threshold),
    falseMerge: shareAtOrBelow(notSame, threshold),
    contradictionsMerged: shareAtOrBelow(contradictions, threshold),
  };
}

/** A small deterministic generator (mulberry32), so the unrelated pairs are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shuffled copy (Fisher–Yates) with the given random source. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
