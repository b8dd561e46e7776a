import { randomUUID } from 'node:crypto';
import { explain } from '../../bin/plan/explain.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { RECALL } from '../../lambda/adapters/pg/statements/recall/recall.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { toVectorLiteral } from '../../lambda/adapters/pg/vector.js';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { FUSION, LEXICAL, POSTING_CUT } from '../../lambda/memory/policy/ranking.js';
import { statisticsHold } from '../model/curation-check.js';
import { freshDatabase } from '../support/database.js';
import { axis } from '../support/vectors.js';

/**
 * On PostgreSQL the lexical arm reads a term past the depth from its flagged postings, best first
 * (decisions 0078, 0101): what the depth bound rests on. What the bound does to the ranking is in the
 * store conformance suite (conformance.ts, "the lexical arm's depth"), on every engine.
 */

let db: PgliteSqlClient;
beforeEach(async () => {
  db = await freshDatabase();
});
afterEach(async () => db.close());

const analyzer = new LexicalAnalyzer();

test('past the depth the postings are read from the flagged span of memory_terms_ranked, in its order, with no scan of the partition’s postings', async () => {
  const userId = randomUUID();
  await sqlMemoryStores(db).transfer.load({
    scope: { region: 'local', userId },
    kind: 'fact',
    expires: false,
    at: new Date(),
    agent: 'a',
    client: 't/1',
    memories: Array.from({ length: 300 }, (_, i) => {
      const content = `zebra note ${i}`;
      return {
        id: randomUUID(),
        content,
        fingerprint: content,
        embedding: axis(1 + (i % 200)),
        frequencies: analyzer.frequencies(content),
      };
    }),
  });
  await db.refreshStatistics();
  const search = RECALL.query(
    {
      scope: { region: 'local', userId },
      embedding: toVectorLiteral(axis(0)),
      terms: analyzer.queryTerms('zebra'),
      kinds: [{ kind: 'fact', expiredBefore: null }],
      candidates: 50,
      depth: FUSION.depth,
      limit: 10,
      now: new Date(),
      fusion: { ...FUSION, farthest: 2, following: 0, followingReach: 0 },
      // zebra counts as rare: in at most 1,000 memories.
      lexical: { ...LEXICAL, commonDf: 1_000, commonShare: 1 },
      touch: false,
    },
    'postgres',
  );

  const plan = await explain(db, search);

  expect(plan.indexes).toContain('memory_terms_ranked');
  expect(plan.lines.some((l) => l.includes('using memory_terms_ranked ') && l.includes('best = true'))).toBe(true);
  expect(plan.seqScans).not.toContain('memory_terms');
});

describe('a raised ceiling: a term in far more memories of a partition than the depth (decision 0101)', () => {
  const region = 'local';
  // 1,000 memories hold "zebra" one to three times, in memories of 4 to 13 terms: many ties in
  // (occurrences, length), broken by id, as the in-memory reference breaks them.
  const memory = (i: number) => {
    const content = `${'zebra '.repeat(1 + (i % 3))}note ${'stripe '.repeat(i % 10)}w${i}`;
    return {
      id: randomUUID(),
      content,
      fingerprint: content,
      embedding: axis(1 + (i % 200)),
      frequencies: analyzer.frequencies(content),
    };
  };
  const loadInto = (
    stores: Pick<ReturnType<typeof sqlMemoryStores>, 'transfer'>,
    userId: string,
    memories: ReturnType<typeof memory>[],
  ) =>
    stores.transfer.load({
      scope: { region, userId },
      kind: 'fact',
      expires: false,
      at: new Date(),
      agent: 'a',
      client: 't/1',
      memories,
    });
  const query = (userId: string) => ({
    scope: { region, userId },
    embedding: axis(0),
    terms: analyzer.queryTerms('zebra'),
    // The lexical arm alone, each rank counted: what differs in the postings read shows.
    fusion: { ...FUSION, vectorWeight: 0, following: 0 },
    // zebra counts as rare: in at most 2,000 memories.
    lexical: { ...LEXICAL, commonDf: 2_000, commonShare: 1 },
    farthest: NO_FLOOR,
    kinds: [{ kind: 'fact', expiredBefore: null }],
    limit: 10,
    candidates: 50,
    now: new Date(),
  });
  /** Rows the recall statement read from memory_terms, by EXPLAIN ANALYZE on PGlite. */
  const postingsRead = async (userId: string): Promise<number> => {
    const q = query(userId);
    const statement = RECALL.query(
      {
        ...q,
        embedding: toVectorLiteral(q.embedding),
        depth: FUSION.depth,
        fusion: { ...q.fusion, farthest: q.farthest },
        touch: false,
      },
      'postgres',
    );
    const [row] = await db.query<Record<string, unknown>>({
      text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      values: statement.values,
    });
    const raw = row ? Object.values(row)[0] : undefined;
    const [plan] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: AnalyzedNode }[];
    let rows = 0;
    const walk = (node: AnalyzedNode) => {
      if (node['Relation Name'] === 'memory_terms') rows += (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1);
      for (const child of node.Plans ?? []) walk(child);
    };
    if (plan) walk(plan.Plan);
    return rows;
  };
  const flagged = async (userId: string) => {
    const [row] = await db.query<{ df: number; best: number; stale: boolean; flagged: number }>({
      text: `SELECT d.df, d.best, d.stale, (SELECT count(*)::int4 FROM memory_terms AS t
                                            WHERE t.region = d.region AND t.user_id = d.user_id AND t.kind = d.kind AND t.term = d.term AND t.best) AS flagged
               FROM memory_partition_terms AS d WHERE d.region = $1 AND d.user_id = $2 AND d.kind = 'fact' AND d.term = 'zebra'`,
      values: [region, userId],
    });
    return row;
  };

  test('recall reads at most the flagged bound of the term, and once ranked, what its best postingsPerTerm give', async () => {
    const userId = randomUUID();
    const memories = Array.from({ length: 1_000 }, (_, i) => memory(i));
    const reference = inMemoryStores();
    const stores = sqlMemoryStores(db);
    // In four statements: the first flags its best 200, the next ones find no room.
    for (let at = 0; at < memories.length; at += 250) {
      await loadInto(stores, userId, memories.slice(at, at + 250));
      await loadInto(reference, userId, memories.slice(at, at + 250));
    }
    await db.refreshStatistics();

    // Each later statement read the counts the earlier ones kept (once per term, decision 0164).
    await statisticsHold(db);
    expect(await flagged(userId)).toEqual({ df: 1_000, best: POSTING_CUT.flagged, stale: true, flagged: POSTING_CUT.flagged });
    expect(await postingsRead(userId)).toBeLessThanOrEqual(POSTING_CUT.flagged);

    // The sweeper ranks the term: its best 175 flagged, the mark cleared; recall then ranks as
    // reading the best postingsPerTerm of all 1,000 does (the in-memory reference).
    expect(await stores.maintenance.rankPostings(region, 100)).toBeGreaterThan(0);
    expect(await flagged(userId)).toEqual({ df: 1_000, best: POSTING_CUT.ranked, stale: false, flagged: POSTING_CUT.ranked });
    const ids = async (s: { page: { search: typeof stores.page.search } }) =>
      (await s.page.search(query(userId))).map((m) => m.id);
    expect(await ids(stores)).toEqual(await ids(reference));
    expect(await postingsRead(userId)).toBeLessThanOrEqual(POSTING_CUT.flagged);

    // A later write that beats the cut is flagged on its own, and ranks as the reference does.
    const better = { ...memory(1), content: 'zebra zebra zebra zebra', fingerprint: 'better' };
    better.frequencies = analyzer.frequencies(better.content);
    await loadInto(stores, userId, [better]);
    await loadInto(reference, userId, [better]);
    await statisticsHold(db);
    expect(await flagged(userId)).toEqual({
      df: 1_001,
      best: POSTING_CUT.ranked + 1,
      stale: false,
      flagged: POSTING_CUT.ranked + 1,
    });
    expect(await ids(stores)).toEqual(await ids(reference));
    const [posting] = await db.query<{ best: boolean }>({
      text: `SELECT best FROM memory_terms WHERE region = $1 AND user_id = $2 AND kind = 'fact' AND term = 'zebra' AND memory_id = $3`,
      values: [region, userId, better.id],
    });
    expect(posting?.best).toBe(true);

    // Forgetting 27 flagged memories leaves 149 flagged of a term in 974: marked, and still exact
    // once the sweeper has ranked it again.
    const gone = await db.query<{ id: string }>({
      text: `SELECT memory_id::text AS id FROM memory_terms
              WHERE region = $1 AND user_id = $2 AND kind = 'fact' AND term = 'zebra' AND best ORDER BY memory_id LIMIT 27`,
      values: [region, userId],
    });
    const forgotten = gone.map((g) => g.id);
    expect(await stores.curation.forgetIds({ region, userId }, forgotten, [])).toHaveLength(27);
    await reference.curation.forgetIds({ region, userId }, forgotten, []);
    expect(await flagged(userId)).toEqual({ df: 974, best: 149, stale: true, flagged: 149 });
    expect(await stores.maintenance.rankPostings(region, 100)).toBeGreaterThan(0);
    expect(await flagged(userId)).toEqual({ df: 974, best: POSTING_CUT.ranked, stale: false, flagged: POSTING_CUT.ranked });
    expect(await ids(stores)).toEqual(await ids(reference));
  });
});

interface AnalyzedNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: AnalyzedNode[];
}
