import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { MIN_BATCH_ROWS } from '../../lambda/adapters/pg/schema/backfill.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { MigrationError } from '../../lambda/adapters/pg/schema/migrate.js';
import { checkPlaces, LIVE_DIMENSIONS, load, migrateBeforeBackfill } from '../pg/live-migration.js';
import { liveMigrationHolds } from '../support/live-migration-run.js';

/**
 * Migrations on a populated database while it serves (decision 0099), on PGlite: 30,000 memories at
 * the schema before 0010, the later migrations applied in batches while writers and readers call
 * it; nothing lost, every place as the single statement gives it, partition counts exact, no call
 * failed. The same on a real PostgreSQL: test/pg/postgres.test.ts; a million rows:
 * `npm run test:migrate-live`.
 */
test('migrations applied in batches while traffic runs lose nothing and fail no call (PGlite)', async () => {
  const db = await PgliteSqlClient.open();
  try {
    await liveMigrationHolds(db, db);
  } finally {
    await db.close();
  }
}, 600_000);

/**
 * 0005's partition rows, counted in batches that stop inside a partition: the same rows as the
 * single statement it replaced (`INSERT … SELECT count(*) … GROUP BY`) gives, every partition once.
 */
test.each([7, 5_000])(
  'partition counts backfilled in batches of %i equal the single statement’s',
  async (batchRows) => {
    const folder = mkdtempSync(join(tmpdir(), 'naaba-partitions-'));
    const db = await PgliteSqlClient.open();
    try {
      for (const file of readdirSync('sql/postgres').filter((f) => /^\d{4}_/.test(f) && f < '0005')) {
        cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
      }
      const source = pathToFileURL(`${folder}/`);
      await migrate(db, { embeddingDimensions: 3, source });
      await db.exec(`INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, agent, client)
      SELECT gen_random_uuid(), CASE WHEN g % 3 = 0 THEN 'us-east-1' ELSE 'eu-central-1' END,
             md5('user-' || (g % 13))::uuid, 'kind-' || (g % 4 + g % 13 % 2), 'm' || g, md5('m' || g), '[1,0,0]', now(), now(), 'a', 'c'
        FROM generate_series(1, 2000) AS g`);
      cpSync(join('sql/postgres', '0005_partitions.sql'), join(folder, 'postgres', '0005_partitions.sql'));
      expect(await migrate(db, { embeddingDimensions: 3, source, batchRows })).toEqual(['0005_partitions.sql']);
      const differences = await db.query<{ n: number }>({
        text: `SELECT count(*)::int AS n FROM memory_partitions AS p
               FULL JOIN (SELECT region, user_id, kind, count(*) AS memories FROM memories GROUP BY region, user_id, kind) AS single
                 ON single.region = p.region AND single.user_id = p.user_id AND single.kind = p.kind
              WHERE p.memories IS DISTINCT FROM single.memories`,
        values: [],
      });
      expect(differences).toEqual([{ n: 0 }]);
      const [partitions] = await db.query<{ n: number }>({
        text: 'SELECT count(*)::int AS n FROM memory_partitions',
        values: [],
      });
      expect(partitions?.n).toBeGreaterThan(30);
    } finally {
      await db.close();
      rmSync(folder, { recursive: true, force: true });
    }
  },
  120_000,
);

/** A client that dies, as a killed `naaba migrate` does, at its `n`-th backfill batch. */
class KilledAtBatch implements SqlClient {
  readonly engine = 'postgres' as const;
  private batches = 0;

  constructor(
    private readonly inner: SqlClient,
    private readonly n: number,
  ) {}

  query<R>(query: Query): Promise<R[]> {
    if (query.text.startsWith('WITH step AS (') && ++this.batches === this.n) {
      return Promise.reject(new Error('terminating connection due to administrator command'));
    }
    return this.inner.query<R>(query);
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

test('a backfill killed half-way goes on from where it stopped when run again, with the same places', async () => {
  const db = await PgliteSqlClient.open();
  try {
    await migrateBeforeBackfill(db);
    await load(db, 6_000);
    const killed = migrate(new KilledAtBatch(db, 3), { embeddingDimensions: LIVE_DIMENSIONS, batchRows: 500 });
    await expect(killed).rejects.toThrow(MigrationError);
    await expect(killed).rejects.toThrow(/backfill 1 failed \(run naaba migrate again/);
    const [half] = await db.query<{ placed: number; recorded: number }>({
      text: `SELECT (SELECT count(*)::int FROM memories WHERE origin_seq IS NOT NULL) AS placed,
                    (SELECT count(*)::int FROM naaba_migrations WHERE version = '0010_origin_sequence.sql') AS recorded`,
      values: [],
    });
    // Two batches committed (the first at the floor, the second at most twice it: decision 0154); the
    // file is not recorded, so code that needs it still refuses the database.
    expect(half?.recorded).toBe(0);
    expect(half?.placed).toBeGreaterThanOrEqual(2 * MIN_BATCH_ROWS);
    expect(half?.placed).toBeLessThanOrEqual(3 * MIN_BATCH_ROWS);
    expect(await migrate(db, { embeddingDimensions: LIVE_DIMENSIONS, batchRows: 500 })).toContain('0010_origin_sequence.sql');
    expect(await checkPlaces(db)).toMatchObject({
      unplaced: 0,
      misplaced: 0,
      placeClashes: 0,
      partitionMismatches: 0,
      total: 6_000,
    });
  } finally {
    await db.close();
  }
}, 300_000);
