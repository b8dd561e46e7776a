import { randomUUID } from 'node:crypto';
import { explain } from '../../bin/plan/explain.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { RECALL } from '../../lambda/adapters/pg/statements/recall/recall.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { toVectorLiteral } from '../../lambda/adapters/pg/vector.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import { freshDatabase } from '../support/database.js';
import { axis } from '../support/vectors.js';

/**
 * On PostgreSQL the lexical arm reads each term's postings from `memory_terms_impact`, best first
 * (decision 0078): what the depth bound rests on. What the bound does to the ranking is in the
 * store conformance suite (conformance.ts, "the lexical arm's depth"), on every engine.
 */

let db: PgliteSqlClient;
beforeEach(async () => {
  db = await freshDatabase();
});
afterEach(async () => db.close());

const analyzer = new LexicalAnalyzer();

test('the postings are read from memory_terms_impact, in its order, with no scan of the partition’s postings', async () => {
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

  expect(plan.indexes).toContain('memory_terms_impact');
  expect(plan.seqScans).not.toContain('memory_terms');
});
