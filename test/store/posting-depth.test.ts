import { randomUUID } from 'node:crypto';
import { explain } from '../../bin/plan/explain.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { recallSql } from '../../lambda/adapters/pg/recall-sql.js';
import { toVectorLiteral } from '../../lambda/adapters/pg/vector.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { FUSION, LEXICAL } from '../../lambda/memory/ranking.js';
import { freshDatabase } from '../support/database.js';
import { axis } from '../support/vectors.js';

/**
 * The lexical arm reads each term's postings best first — most occurrences, then the shortest
 * memory — and at most `postingsPerTerm` of them per partition (decision 0078): its cost is
 * bounded whatever the partition's size, and within that depth it is the same BM25.
 */

let db: PgliteSqlClient;
let store: SqlMemoryStore;
beforeEach(async () => {
  db = await freshDatabase();
  store = new SqlMemoryStore(db);
});
afterEach(async () => db.close());

const analyzer = new LexicalAnalyzer();

/** Memories of one user's `fact` partition, each with its own text; returns their ids by text. */
async function load(userId: string, texts: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const memories = texts.map((content, i) => {
    const id = randomUUID();
    ids.set(content, id);
    return { id, content, fingerprint: `${i}`, embedding: axis(1 + (i % 200)), frequencies: analyzer.frequencies(content) };
  });
  await store.load({
    scope: { region: 'local', userId },
    kind: 'fact',
    expires: false,
    at: new Date(),
    agent: 'a',
    client: 't/1',
    memories,
  });
  return ids;
}

/** What the lexical arm alone returns (the vector arm runs with weight 0 and counts for nothing). */
const lexicalOnly = (userId: string, query: string, postingsPerTerm: number, kinds = ['fact']) =>
  store.search({
    scope: { region: 'local', userId },
    embedding: axis(0),
    terms: analyzer.queryTerms(query),
    fusion: { ...FUSION, vectorWeight: 0 },
    lexical: { ...LEXICAL, postingsPerTerm },
    kinds: kinds.map((kind) => ({ kind, expiredBefore: null })),
    limit: 10,
    candidates: 50,
    now: new Date(),
  });

test('a term in more memories than the depth: the ones with most occurrences, then the shortest, are read', async () => {
  const userId = randomUUID();
  const texts = [
    'quagga once',
    'quagga quagga twice here',
    'quagga quagga twice',
    'quagga quagga quagga thrice in a rather long memory about stripes and plains',
    'quagga once more in a long memory about plains',
    'quagga and also',
  ];
  const ids = await load(userId, texts);
  const id = (text: string) => ids.get(text);
  const shallow = await lexicalOnly(userId, 'quagga', 3);

  // Three occurrences, then two in the shorter memory, then two in the longer one.
  expect(new Set(shallow.map((m) => m.id))).toEqual(
    new Set([
      id('quagga quagga quagga thrice in a rather long memory about stripes and plains'),
      id('quagga quagga twice'),
      id('quagga quagga twice here'),
    ]),
  );
  // Deep enough for every posting: all six.
  expect(await lexicalOnly(userId, 'quagga', 100)).toHaveLength(6);
});

test('the depth holds per partition: each kind searched gets its own best postings', async () => {
  const userId = randomUUID();
  await load(userId, ['okapi okapi two', 'okapi one', 'okapi one again']);
  const scope = { region: 'local', userId };
  await store.load({
    scope,
    kind: 'event',
    expires: false,
    at: new Date(),
    agent: 'a',
    client: 't/1',
    memories: ['okapi okapi seen', 'okapi heard'].map((content, i) => ({
      id: randomUUID(),
      content,
      fingerprint: `e${i}`,
      embedding: axis(50 + i),
      frequencies: analyzer.frequencies(content),
    })),
  });

  const found = await lexicalOnly(userId, 'okapi', 1, ['fact', 'event']);

  expect(found.map((m) => m.content).sort()).toEqual(['okapi okapi seen', 'okapi okapi two']);
});

test('the postings are read from memory_terms_impact, in its order, with no scan of the partition’s postings', async () => {
  const userId = randomUUID();
  await load(
    userId,
    Array.from({ length: 300 }, (_, i) => `zebra note ${i}`),
  );
  await db.refreshStatistics();
  const params = [
    'local',
    userId,
    toVectorLiteral(axis(0)),
    50,
    10,
    new Date(),
    FUSION.depth,
    [FUSION.k, FUSION.vectorWeight, FUSION.lexicalWeight, 2],
    'fact',
    analyzer.queryTerms('zebra'),
    // {k1, b, common df, common share, short length, half length, postings per term}: zebra counts as rare.
    [LEXICAL.k1, LEXICAL.b, 1_000, 1, LEXICAL.shortLength, LEXICAL.halfLength, LEXICAL.postingsPerTerm],
  ];

  const plan = await explain(db, recallSql(1, 0, true, false), params);

  expect(plan.indexes).toContain('memory_terms_impact');
  expect(plan.seqScans).not.toContain('memory_terms');
});
