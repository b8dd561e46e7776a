import { createHash } from 'node:crypto';
import type { SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { param, sql } from '../lambda/adapters/pg/sql/template.js';

/**
 * The rows and calls of `bench:migrate` (decision 0117): memories of many users in every region of
 * the database loaded a group of users per statement, and the calls of code that knows only the
 * schema before the migrations under test (CockroachDB 0011 and 0014, PostgreSQL 0013 and 0016):
 * remember (the memory, its postings, its partition's counts), recall (the vector arm and the
 * touch; one term's postings, best first), forget. The SQL is the subset both engines accept, and
 * every statement reads and writes one user's partition, or one group of users while loading.
 */

export const KINDS = ['fact', 'event'] as const;
/** Each memory holds three of these terms, once each: its postings and their counts stay checkable. */
export const VOCABULARY = 20;
export const TERMS_PER_MEMORY = 3;
export const MEMORIES_PER_USER = 200;

/** The bench's user `n` (the same id in SQL, `md5`, and here). */
export function userId(n: number): string {
  const hex = createHash('md5').update(`bench-user-${n}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const termsOf = (n: number) => [0, 7, 13].map((shift) => `t${(n + shift) % VOCABULARY}`);

/** The users of each region, in groups of about `rows` memories each: what one load statement writes. */
export function userGroups(users: number, regions: readonly string[], rows: number): { region: string; users: number[] }[] {
  const per = Math.max(1, Math.floor(rows / MEMORIES_PER_USER));
  const groups: { region: string; users: number[] }[] = [];
  regions.forEach((region, r) => {
    const mine = Array.from({ length: users }, (_, u) => u).filter((u) => u % regions.length === r);
    for (let i = 0; i < mine.length; i += per) groups.push({ region, users: mine.slice(i, i + per) });
  });
  return groups;
}

/** Loads one group's memories with their postings, then their partitions' counts: three statements. */
export async function loadGroup(db: SqlClient, group: { region: string; users: number[] }): Promise<void> {
  const ids = group.users.map(userId);
  const region = param('region', group.region);
  const users = param('users', ids);
  const count = param('count', ids.length);
  const vocabulary = param('vocabulary', VOCABULARY);
  // No division: CockroachDB divides integers into decimals. Users take the rows in turn, the
  // first half of the group's rows are facts.
  await db.query(sql`
WITH written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, agent, client, terms, term_count)
  SELECT gen_random_uuid(), ${region}, (${users}::uuid[])[g % ${count}::int + 1],
         CASE WHEN g < ${param('half', (ids.length * MEMORIES_PER_USER) / 2)}::int THEN 'fact' ELSE 'event' END,
         concat('loaded ', g::text), md5(concat('loaded ', g::text)),
         concat('[', (g % 7 + 1)::text, ',', (g % 5)::text, ',', (g % 3)::text, ',1]')::vector,
         timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second', timestamptz '2026-01-01 00:00:00+00',
         'loader', 'bench-migrate',
         ARRAY[concat('t', (g % ${vocabulary}::int)::text), concat('t', ((g + 7) % ${vocabulary}::int)::text),
               concat('t', ((g + 13) % ${vocabulary}::int)::text)], 3
    FROM generate_series(0, ${param('last', ids.length * MEMORIES_PER_USER - 1)}::int) AS g
  RETURNING region, user_id, kind, id, terms
)
INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl)
SELECT w.region, w.user_id, w.kind, t.term, w.id, 1, 3 FROM written AS w, unnest(w.terms) AS t (term)`);
  await db.query(sql`
INSERT INTO memory_partition_terms (region, user_id, kind, term, df)
SELECT region, user_id, kind, term, count(*) FROM memory_terms
 WHERE region = ${region} AND user_id = ANY(${users}::uuid[])
 GROUP BY region, user_id, kind, term`);
  await db.query(sql`
INSERT INTO memory_partitions (region, user_id, kind, memories, term_total)
SELECT region, user_id, kind, count(*), sum(term_count) FROM memories
 WHERE region = ${region} AND user_id = ANY(${users}::uuid[])
 GROUP BY region, user_id, kind`);
}

/** A call of older code, and whether it changed a row. */
export type Call = 'remember' | 'forget' | 'recall' | 'postings';

/** The statement of one call by `user` (in `region`), valid before and after the migrations. */
export function callOf(call: Call, region: string, user: number, kind: string, n: number) {
  const r = param('region', region);
  const u = param('user', userId(user));
  const k = param('kind', kind);
  const terms = param('terms', termsOf(n));
  const content = param('content', `written ${n}`);
  switch (call) {
    case 'remember':
      return sql`
WITH written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, agent, client, terms, term_count)
  VALUES (gen_random_uuid(), ${r}, ${u}::uuid, ${k}, ${content}, md5(${content}),
          '[1,1,1,1]'::vector, now(), now(), 'writer', 'bench-migrate', ${terms}::text[], 3)
  RETURNING region, user_id, kind, id
), postings AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl)
  SELECT w.region, w.user_id, w.kind, t.term, w.id, 1, 3 FROM written AS w, unnest(${terms}::text[]) AS t (term)
  RETURNING 1
), counts AS (
  INSERT INTO memory_partition_terms AS p (region, user_id, kind, term, df)
  SELECT w.region, w.user_id, w.kind, t.term, 1 FROM written AS w, unnest(${terms}::text[]) AS t (term)
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = p.df + 1
  RETURNING 1
)
INSERT INTO memory_partitions AS p (region, user_id, kind, memories, term_total)
SELECT region, user_id, kind, 1, 3 FROM written
ON CONFLICT (region, user_id, kind) DO UPDATE SET memories = p.memories + 1, term_total = p.term_total + 3
RETURNING 1 AS changed`;
    case 'forget':
      // A memory the run wrote itself (one of the loaded ones would do as well, but these are few per partition).
      return sql`
WITH gone AS (
  DELETE FROM memories
   WHERE region = ${r} AND id = (SELECT id FROM memories
                                  WHERE region = ${r} AND user_id = ${u}::uuid AND kind = ${k} AND agent = 'writer'
                                  ORDER BY last_useful_at LIMIT 1)
  RETURNING region, user_id, kind, id, terms
), postings AS (
  DELETE FROM memory_terms AS t USING gone
   WHERE t.region = gone.region AND t.user_id = gone.user_id AND t.kind = gone.kind AND t.term = ANY(gone.terms) AND t.memory_id = gone.id
  RETURNING 1
), counts AS (
  UPDATE memory_partition_terms AS p SET df = p.df - 1
    FROM gone, unnest(gone.terms) AS x (term)
   WHERE p.region = gone.region AND p.user_id = gone.user_id AND p.kind = gone.kind AND p.term = x.term
  RETURNING 1
)
UPDATE memory_partitions AS p SET memories = p.memories - 1, term_total = p.term_total - 3
  FROM gone WHERE p.region = gone.region AND p.user_id = gone.user_id AND p.kind = gone.kind
RETURNING 1 AS changed`;
    case 'recall':
      return sql`
WITH hits AS (
  SELECT id FROM memories
   WHERE region = ${r} AND user_id = ${u}::uuid AND kind = ${k}
   ORDER BY embedding <=> '[1,2,1,1]'::vector LIMIT 10
)
UPDATE memories AS m SET recall_count = m.recall_count + 1, last_useful_at = GREATEST(m.last_useful_at, now())
  FROM hits WHERE m.region = ${r} AND m.id = hits.id
RETURNING m.id`;
    case 'postings':
      return sql`
SELECT memory_id, tf FROM memory_terms
 WHERE region = ${r} AND user_id = ${u}::uuid AND kind = ${k} AND term = ${param('term', termsOf(n)[0])}
 ORDER BY tf DESC, dl LIMIT 150`;
  }
}

/** What must hold after the run: counts of what is wrong, each computed per region. */
export interface Consistency {
  readonly memories: number;
  readonly postings: number;
  /** Partitions whose kept count differs from their memories. */
  readonly partitionsWrong: number;
  /** (partition, term) rows whose df differs from their postings. */
  readonly termCountsWrong: number;
  /** Memories without exactly TERMS_PER_MEMORY postings. */
  readonly postingsWrong: number;
}

export async function consistency(db: SqlClient, regions: readonly string[]): Promise<Consistency> {
  let found = { memories: 0, postings: 0, partitionsWrong: 0, termCountsWrong: 0, postingsWrong: 0 };
  for (const region of regions) {
    const r = param('region', region);
    const [row] = await db.query<Record<string, string>>(sql`
SELECT (SELECT count(*) FROM memories WHERE region = ${r}) AS memories,
       (SELECT count(*) FROM memory_terms WHERE region = ${r}) AS postings,
       (SELECT count(*) FROM memory_partitions AS p
          FULL JOIN (SELECT user_id, kind, count(*) AS n FROM memories WHERE region = ${r} GROUP BY user_id, kind) AS c
            ON c.user_id = p.user_id AND c.kind = p.kind
         WHERE (p.region = ${r} OR p.region IS NULL) AND COALESCE(p.memories, 0) <> COALESCE(c.n, 0)) AS partitions_wrong,
       (SELECT count(*) FROM memory_partition_terms AS p
          FULL JOIN (SELECT user_id, kind, term, count(*) AS n FROM memory_terms WHERE region = ${r} GROUP BY user_id, kind, term) AS c
            ON c.user_id = p.user_id AND c.kind = p.kind AND c.term = p.term
         WHERE (p.region = ${r} OR p.region IS NULL) AND COALESCE(p.df, 0) <> COALESCE(c.n, 0)) AS term_counts_wrong,
       (SELECT count(*) FROM memories AS m
          LEFT JOIN (SELECT memory_id, count(*) AS n FROM memory_terms WHERE region = ${r} GROUP BY memory_id) AS t ON t.memory_id = m.id
         WHERE m.region = ${r} AND COALESCE(t.n, 0) <> ${param('each', TERMS_PER_MEMORY)}::int) AS postings_wrong`);
    found = {
      memories: found.memories + Number(row?.memories),
      postings: found.postings + Number(row?.postings),
      partitionsWrong: found.partitionsWrong + Number(row?.partitions_wrong),
      termCountsWrong: found.termCountsWrong + Number(row?.term_counts_wrong),
      postingsWrong: found.postingsWrong + Number(row?.postings_wrong),
    };
  }
  return found;
}
