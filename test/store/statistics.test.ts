import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { randomUUID } from 'node:crypto';
import { explain } from '../../bin/plan/explain.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { NEIGHBOURS } from '../../lambda/adapters/pg/statements/curation/neighbours.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { toVectorLiteral } from '../../lambda/adapters/pg/vector.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { freshDatabase } from '../support/database.js';
import { pollUntil } from '../support/poll.js';
import { axis } from '../support/vectors.js';

let db: PgliteSqlClient;
beforeEach(async () => {
  db = await freshDatabase();
});
afterEach(async () => db.close());

/** `each` memories for each of `users` new users, loaded in bulk: the test is about statistics, not the write path. */
async function load(users: number, each: number): Promise<string[]> {
  const store = sqlMemoryStores(db).transfer;
  const now = new Date();
  const ids = Array.from({ length: users }, () => randomUUID());
  for (const userId of ids) {
    await store.load({
      scope: { region: 'local', userId },
      kind: 'fact',
      expires: false,
      at: now,
      agent: 'a',
      client: 'tests/1',
      memories: Array.from({ length: each }, (_, i) => ({
        id: randomUUID(),
        content: `note ${i}`,
        fingerprint: `${userId}-${i}`,
        embedding: axis(i % 7),
        frequencies: new Map([
          ['note', 1],
          [String(i), 1],
        ]),
      })),
    });
  }
  return ids;
}

const relpages = async () =>
  (await db.query<{ n: number }>(sql`SELECT relpages AS n FROM pg_class WHERE relname = 'memories'`))[0]?.n ?? -1;

test(
  'a user’s read takes the per-user index before statistics exist and after they are refreshed',
  async () => {
    const [first] = await load(20, 150);
    const neighbours = NEIGHBOURS.query(
      {
        scope: { region: 'local', userId: first ?? '' },
        kind: 'fact',
        embedding: toVectorLiteral(axis(0)),
        fingerprint: 'none',
        expiredBefore: null,
        candidates: 1,
        judged: 1,
        terms: ['t'],
        wordsRead: 50,
      },
      'postgres',
    );
    // Led by (region, user_id, kind), the index matches every equality of the read: no statistics needed
    // (migration 0003; led by (user_id, kind) it lost this tie to the region-wide memories_expiry).
    expect((await explain(db, neighbours)).indexes).toContain('memories_user_kind');

    expect(await db.refreshStatistics()).toEqual(['memories', 'memory_partition_terms', 'memory_terms']);
    expect((await explain(db, neighbours)).indexes).toContain('memories_user_kind');
    expect(await db.refreshStatistics()).toEqual([]);
  },
  HEAVY_STEP_MS,
);

test(
  'kept current while open: a table that grew is analysed by the next check, with no manual step',
  async () => {
    await db.keepStatisticsCurrent(50);
    const before = await relpages();
    await load(10, 150);
    // The timer's next check comes on its own time: wait for the statistics rather than a fixed 400 ms.
    expect(await pollUntil(relpages, (pages) => pages > before)).toBeGreaterThan(before);
  },
  HEAVY_STEP_MS,
);

test('the timer only analyses; the open vacuums a table whose pages are mostly not all-visible, once', async () => {
  const visibility = async () =>
    (
      await db.query<{ pages: number; visible: number }>(
        sql`SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'memory_partitions'`,
      )
    )[0];
  await db.exec(`INSERT INTO memory_partitions (region, user_id, kind, memories)
SELECT 'local', gen_random_uuid(), 'fact', 1 FROM generate_series(1, 5000)`);

  // The timer's refresh: statistics only, so no page becomes all-visible (a VACUUM would mark them).
  expect(await db.refreshStatistics()).toContain('memory_partitions');
  const analysed = await visibility();
  expect(analysed?.pages).toBeGreaterThan(8);
  expect(analysed?.visible).toBe(0);

  expect(await db.vacuumWhereNeeded()).toEqual(['memory_partitions']);
  const vacuumed = await visibility();
  expect(vacuumed?.visible).toBe(vacuumed?.pages);
  expect(await db.vacuumWhereNeeded()).toEqual([]);
});
