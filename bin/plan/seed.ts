import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
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

export const DEFAULT_SEED: SeedSize = { users: 100, memoriesPerUser: 90, journalPerUser: 30, usersPerStatement: 25 };

/** The seeded users: the representative user first, then synthetic ones that are easy to spot. */
export function seededUsers(rep: Representative, size: SeedSize): string[] {
  return Array.from({ length: size.users }, (_, u) =>
    u === 0 ? rep.userId : `5eed0000-0000-4000-8000-${String(u).padStart(12, '0')}`,
  );
}

// Text in the subset both engines accept: no integer division, vectors cast from their text form,
// lexemes from the engine's own 'simple' configuration (the runtime sends the analyzer's terms).
const MEMORIES = `
INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, lexemes, pinned, created_at, last_useful_at,
                      agent, client)
SELECT gen_random_uuid(), $1, u.id, (ARRAY['fact', 'preference', 'session'])[1 + r % 3],
       'seeded memory ' || r::text, md5(u.id::text || '-' || r::text),
       ('[' || (SELECT string_agg((random() - 0.5)::text, ',') FROM generate_series(1, $3::int4) AS d WHERE r >= 0) || ']')::vector,
       to_tsvector('simple', 'seeded memory ' || r::text || ' ' || (ARRAY['market', 'bread', 'river', 'school', 'tea', 'rain', 'clinic'])[1 + r % 7]),
       r % 17 = 0, $2::timestamptz - r * interval '5 hours', $2::timestamptz - r * interval '5 hours',
       'naaba-verify-plan', 'naaba/verify-plan'
  FROM unnest($4::uuid[]) AS u (id), generate_series(0, $5::int4 - 1) AS r`;

const JOURNAL = `
INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
SELECT gen_random_uuid(), $1, u.id, $2::timestamptz - r * interval '2 days', 'fact', 'ceiling', 3600, 0
  FROM unnest($3::uuid[]) AS u (id), generate_series(0, $4::int4 - 1) AS r`;

const LINKS = `
INSERT INTO memory_links (region, memory_id, linked_id, user_id)
SELECT region, id, id, user_id FROM memories
 WHERE region = $1 AND user_id = ANY($2::uuid[]) AND fingerprint LIKE '0%'`;

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
    await db.query(MEMORIES, [rep.region, rep.now, rep.dimensions, batch, size.memoriesPerUser]);
    await db.query(JOURNAL, [rep.region, rep.now, batch, size.journalPerUser]);
  }
  await db.query(LINKS, [rep.region, users]);
  for (const table of ['memories', 'journal', 'memory_links']) await db.exec(`ANALYZE ${table}`);
  return async () => {
    await db.query('DELETE FROM memories WHERE region = $1 AND user_id = ANY($2::uuid[])', [rep.region, users]);
    await db.query('DELETE FROM journal WHERE region = $1 AND user_id = ANY($2::uuid[])', [rep.region, users]);
  };
}
