import { answerFirst, lookalikeSet, newerFirst, rankLookalikes, rankUpdates, UPDATE_PAIRS } from './updates.js';

/**
 * Issue 33's offline target (decision 0113): with the offline judge, which supersedes nothing, the
 * newer statement of an update pair ranks above the older in at least 90 % of the 60 pairs of
 * test/eval/updates/dev.json (`npm run eval:updates` prints the figure and the misses). Without
 * the newer-first rule, 16–17 of 60. Issue 47 asks that nothing drops: the pairs each embedder
 * misses today are named, and any other miss fails (fr-num-06's "est" is held by half of the
 * other memories found, decision 0135).
 */
const EARLIER_MISSES = { local: ['fr-num-06'], sentence: [] } as const;

test.each([
  ['pglite', 'local'],
  ['memory', 'local'],
  ['memory', 'sentence'],
] as const)(
  'on %s with the %s embedder, the newer statement of an update ranks above the older in at least 90 %% of the pairs, and no pair is missed but those named',
  async (store, embedder) => {
    const ranks = await rankUpdates(store, embedder);

    expect(ranks).toHaveLength(UPDATE_PAIRS.length);
    expect(ranks.every((r) => r.newer >= 0)).toBe(true);
    expect(ranks.filter(newerFirst).length).toBeGreaterThanOrEqual(Math.ceil(0.9 * UPDATE_PAIRS.length));
    const missed = ranks.filter((r) => !newerFirst(r)).map((r) => r.pair.id);
    expect(missed.filter((id) => !(EARLIER_MISSES[embedder] as readonly string[]).includes(id))).toEqual([]);
  },
  120_000,
);

/**
 * Issue 47's targets (decision 0124) on test/eval/updates/lookalikes.json: recency orders only what
 * the query cannot tell apart. A newer look-alike (another subject that reads alike) above the
 * answer in at most 5 % of pairs, the newer first in at least 90 % of updates, and every list entry
 * first for its own question (with the sentence encoder since decision 0135). Without decision 0124's rule: 23 of 30
 * look-alikes lost in the issue's own measure.
 */
test.each([
  ['pglite', 'local'],
  ['memory', 'local'],
  ['memory', 'sentence'],
] as const)(
  'on %s with the %s embedder, recency moves updates first and never a look-alike',
  async (store, embedder) => {
    const set = lookalikeSet();
    const ranks = await rankLookalikes(store, embedder);

    expect(ranks.lookalikes).toHaveLength(set.lookalikes.length);
    expect(ranks.lookalikes.filter((r) => !answerFirst(r)).length).toBeLessThanOrEqual(Math.floor(0.05 * set.lookalikes.length));
    expect(ranks.updates.filter(newerFirst).length).toBeGreaterThanOrEqual(Math.ceil(0.9 * set.updates.length));
    // With both embedders, French lists included: the entry holding the question's name comes first (decision 0135).
    expect(ranks.entries.filter((e) => e.place !== 0)).toEqual([]);
  },
  300_000,
);
