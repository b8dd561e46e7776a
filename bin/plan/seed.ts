import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { params, sql, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { Representative } from './catalogue.js';

/** How much representative data to write: enough rows that a planner sees per-user selectivity. */
export interface SeedSize {
  readonly users: number;
  /** Memories per user, spread over the kinds fact, preference and session. */
  readonly memoriesPerUser: number;
  readonly journalPerUser: number;
  /** Users written per INSERT (CockroachDB advises against large batches of vectors). */
  readonly usersPerStatement: number;
}

export const DEFAULT_SEED: SeedSize = { users: 100, memoriesPerUser: 90, journalPerUser: 120, usersPerStatement: 25 };

/** The seeded users: the representative user first, then synthetic ones that are easy to spot. */
export function seededUsers(rep: Representative, size: SeedSize): string[] {
  return Array.from({ length: size.users }, (_, u) =>
    u === 0 ? rep.userId : `5eed0000-0000-4000-8000-${String(u).padStart(12, '0')}`,
  );
}

// Text in the subset both engines accept: no integer division, vectors cast from their text form,
// four terms per memory (the runtime sends the analyzer's), session memories in the expiry index,
// four in five memories from a conversation of twenty (their origin, each at its place in it),
// as an agent stores chats.
const MEMORIES = (inputs: { region: string; now: Date; dimensions: number; users: string[]; perUser: number }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_count, pinned, expires,
                      created_at, last_useful_at, agent, client, origin, origin_seq)
SELECT gen_random_uuid(), ${p.region}, u.id, (ARRAY['fact', 'preference', 'session'])[1 + r % 3],
       'seeded memory ' || r::text, md5(u.id::text || '-' || r::text),
       ('[' || (SELECT string_agg((random() - 0.5)::text, ',') FROM generate_series(1, ${p.dimensions}::int4) AS d WHERE r >= 0) || ']')::vector,
       ARRAY['seeded', 'memory', r::text, (ARRAY['market', 'bread', 'river', 'school', 'tea', 'rain', 'clinic'])[1 + r % 7]], 4,
       r % 17 = 0, r % 3 = 2 AND r % 17 <> 0, ${p.now}::timestamptz - r * interval '5 hours', ${p.now}::timestamptz - r * interval '5 hours',
       'naaba-verify-plan', 'naaba/verify-plan', CASE WHEN r % 5 <> 4 THEN 'conversation ' || (r - r % 20)::text END,
       CASE WHEN r % 5 <> 4 THEN r % 20 + 1 END
  FROM unnest(${p.users}::uuid[]) AS u (id), generate_series(0, ${p.perUser}::int4 - 1) AS r`;
};

/** The seeded memories' postings, and their partitions' kept statistics, as the runtime keeps them (every term under the flagged bound: all flagged). */
const POSTINGS = (inputs: { region: string; users: string[] }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl, best)
SELECT m.region, m.user_id, m.kind, t.term, m.id, 1, m.term_count, true
  FROM memories AS m, unnest(m.terms) AS t(term) WHERE m.region = ${p.region} AND m.user_id = ANY(${p.users}::uuid[])`;
};
const FREQUENCIES = (inputs: { region: string; users: string[] }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memory_partition_terms (region, user_id, kind, term, df, best, stale)
SELECT region, user_id, kind, term, CAST(count(*) AS INT4), CAST(count(*) AS INT4), false FROM memory_terms
 WHERE region = ${p.region} AND user_id = ANY(${p.users}::uuid[]) GROUP BY region, user_id, kind, term`;
};
const PARTITIONS = (inputs: { region: string; users: string[] }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memory_partitions (region, user_id, kind, memories, term_total)
SELECT region, user_id, kind, count(*), sum(term_count) FROM memories
 WHERE region = ${p.region} AND user_id = ANY(${p.users}::uuid[]) GROUP BY region, user_id, kind`;
};
/**
 * Partition rows of users beyond the seeded ones (a partition row outlives its memories): in
 * production the table holds a row per user and kind, so that a plan reading one is an index
 * read, never a scan of a table small enough to read whole.
 */
const OTHER_PARTITIONS = (inputs: { region: string; users: string[] }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memory_partitions (region, user_id, kind)
SELECT ${p.region}, u.id, k.kind FROM unnest(${p.users}::uuid[]) AS u (id), unnest(ARRAY['', 'fact', 'preference', 'session']) AS k (kind)`;
};

const JOURNAL = (inputs: { region: string; now: Date; users: string[]; perUser: number }) => {
  const p = params(inputs);
  return sql`
INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
SELECT gen_random_uuid(), ${p.region}, u.id, ${p.now}::timestamptz - r * interval '2 days', 'fact', 'ceiling', 3600, 0
  FROM unnest(${p.users}::uuid[]) AS u (id), generate_series(0, ${p.perUser}::int4 - 1) AS r`;
};

const LINKS = (inputs: { region: string; users: string[] }) => {
  const p = params(inputs);
  return sql`
INSERT INTO memory_links (region, memory_id, linked_id, user_id)
SELECT region, id, id, user_id FROM memories
 WHERE region = ${p.region} AND user_id = ANY(${p.users}::uuid[]) AND fingerprint LIKE '0%'`;
};

/** Users who have only partition rows: twenty for each seeded user. */
const otherUsers = (size: SeedSize) =>
  Array.from({ length: size.users * 20 }, (_, u) => `5eed0001-0000-4000-8000-${String(u).padStart(12, '0')}`);

/** The tables the seed writes, in the order its rows can be removed. */
const SEEDED = ['memory_links', 'memory_terms', 'memory_partition_terms', 'memory_partitions', 'memories', 'journal'];
/** PostgreSQL and PGlite also keep large partitions' vector cells (decision 0083). */
const SEEDED_CELLS = ['memory_cells'];

/**
 * On PostgreSQL and PGlite, the `fact` partitions of the first fifth of the users (the
 * representative one first) get their vector cells, as the sweeper builds them for large
 * partitions: recall's plan must read a partition with cells by them, and one without exactly.
 */
async function seedCells(db: SqlClient, rep: Representative, users: readonly string[], size: SeedSize): Promise<void> {
  const cells = Math.max(2, Math.round(Math.sqrt(size.memoriesPerUser / 3)));
  for (const user of users.slice(0, Math.max(1, Math.ceil(users.length / 5)))) {
    const partition = { scope: { region: rep.region, userId: user }, kind: 'fact' };
    const memories = Math.ceil(size.memoriesPerUser / 3);
    await sqlMemoryStores(db).maintenance.buildCells(partition.scope, partition.kind, {
      cells,
      rounds: 1,
      rowsPerStep: 1000,
      memories,
      cellsFor: null,
    });
  }
}

/**
 * Writes representative rows (memories with embeddings, journal lines, a few links) and refreshes
 * table statistics, so that EXPLAIN shows the plans production data would get. Returns how to
 * remove exactly those rows again.
 */
export async function seedRepresentative(
  db: SqlClient,
  rep: Representative,
  size: SeedSize = DEFAULT_SEED,
): Promise<() => Promise<void>> {
  const users = seededUsers(rep, size);
  for (let i = 0; i < users.length; i += size.usersPerStatement) {
    const batch = users.slice(i, i + size.usersPerStatement);
    await db.query(
      MEMORIES({ region: rep.region, now: rep.now, dimensions: rep.dimensions, users: batch, perUser: size.memoriesPerUser }),
    );
    await db.query(JOURNAL({ region: rep.region, now: rep.now, users: batch, perUser: size.journalPerUser }));
  }
  await db.query(LINKS({ region: rep.region, users }));
  for (const statement of [POSTINGS, FREQUENCIES, PARTITIONS]) await db.query(statement({ region: rep.region, users }));
  const others = otherUsers(size);
  await db.query(OTHER_PARTITIONS({ region: rep.region, users: others }));
  const cells = db.engine === 'cockroach' ? [] : SEEDED_CELLS;
  if (cells.length > 0) await seedCells(db, rep, users, size);
  // On PGlite as its statistics refresh analyses (from a small sample, decision 0105): the plans must hold with those.
  for (const table of [...SEEDED, ...cells]) {
    await (db instanceof PgliteSqlClient ? db.analyze(table) : db.exec(`ANALYZE ${table}`));
  }
  return async () => {
    for (const table of [...cells, ...SEEDED]) {
      const p = params({ region: rep.region, users: [...users, ...others] });
      await db.query(sql`DELETE FROM ${verbatim(table)} WHERE region = ${p.region} AND user_id = ANY(${p.users}::uuid[])`);
    }
  };
}
