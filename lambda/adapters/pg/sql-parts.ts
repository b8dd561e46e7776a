/**
 * Fragments the memory store's statements share, in the SQL subset PostgreSQL and CockroachDB
 * both accept. Each is a function of the aliases and parameters it reads, so a statement stays one
 * readable string with no runtime assembly beyond these names.
 */

/** True for a row of one kind that is not expired: `cutoff` is the kind's expired-before instant, null without a TTL. */
export const liveAt = (alias: string, cutoff: string) =>
  `(${cutoff}::timestamptz IS NULL OR ${alias}.pinned OR ${alias}.last_useful_at >= ${cutoff}::timestamptz)`;

/**
 * A predicate that is true for rows not expired: pinned, of a kind without TTL, or useful since
 * the kind's cutoff. Cutoffs arrive as parameters starting at `$first`, paired with their kind.
 */
export function unexpired(ttlKinds: number, first: number, alias: string): string {
  if (ttlKinds === 0) return 'true';
  const arms = Array.from({ length: ttlKinds }, (_, i) => {
    const kind = first + 2 * i;
    return `WHEN $${kind} THEN ${alias}.last_useful_at >= $${kind + 1}::timestamptz`;
  });
  return `(${alias}.pinned OR CASE ${alias}.kind ${arms.join(' ')} ELSE true END)`;
}

/**
 * Journal rows for expired memories read from `source` (columns created_at, last_useful_at,
 * recall_count): a line's time is the instant the memory expired, its last usefulness plus the
 * kind's TTL (`ttl`, an interval), whenever it was removed; the age is the memory's at that
 * instant (decision 0055).
 */
export const expiryLines = (source: string, region: string, user: string, kind: string, ttl: string) =>
  `SELECT gen_random_uuid(), ${region}, ${user}, e.last_useful_at + ${ttl}, ${kind}, 'expiry',
         CAST(extract(epoch FROM e.last_useful_at + ${ttl} - e.created_at) AS INT8), e.recall_count
    FROM ${source} AS e`;

/**
 * What must follow when memories leave by any path but an insert (forget, expiry, the sweeper):
 * their postings go, and their partitions' document frequencies and counts come down by what
 * left. `gone` returns user_id, kind, id, terms and term_count of the deleted rows; `region` is
 * the statement's region parameter and `user` its user's, when it has one. Every change is a decrement, so statements running at once
 * (at READ COMMITTED) add up exactly; a frequency that reaches zero stays as a row until the
 * sweeper clears it (`CLEAR_EMPTY_TERMS`).
 */
export const forgottenTerms = (gone: string, region: string, user?: string) => {
  // With the user known, every statement reads that user's keys only, whatever the planner guesses.
  const own = (alias: string) => (user ? ` AND ${alias}.user_id = ${user}` : '');
  return `gone_terms AS (
  SELECT g.user_id, g.kind, t.term, g.id FROM ${gone} AS g, unnest(g.terms) AS t(term)
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = ${region}${own('p')} AND (p.user_id, p.kind, p.term, p.memory_id) IN (SELECT user_id, kind, term, id FROM gone_terms)
  RETURNING 1
), rarer AS (
  UPDATE memory_partition_terms AS d SET df = d.df - c.n
    FROM (SELECT user_id, kind, term, count(*) AS n FROM gone_terms GROUP BY user_id, kind, term) AS c
   WHERE d.region = ${region}${own('d')} AND d.user_id = c.user_id AND d.kind = c.kind AND d.term = c.term
  RETURNING 1
), smaller AS (
  UPDATE memory_partitions AS p SET memories = p.memories - c.n, term_total = p.term_total - c.total
    FROM (SELECT user_id, kind, count(*) AS n, sum(term_count) AS total FROM ${gone} GROUP BY user_id, kind) AS c
   WHERE p.region = ${region}${own('p')} AND p.user_id = c.user_id AND p.kind = c.kind
  RETURNING 1
)`;
};

/** The columns every memory answer carries, read from `alias`. */
export const MEMORY_COLUMNS = (alias: string) =>
  [
    'id',
    'kind',
    'content',
    'pinned',
    'created_at',
    'last_useful_at',
    'recall_count',
    'restatements',
    'origin',
    'agent',
    'client',
    'restated_by',
  ]
    .map((c) => `${alias}.${c}`)
    .join(', ');

/** The ids a memory is linked to by a conflict, sorted: $1 is the region. */
export const CONFLICTS = (alias: string) =>
  `ARRAY(SELECT l.linked_id::text FROM memory_links AS l WHERE l.region = $1 AND l.memory_id = ${alias}.id ORDER BY 1)`;

/** The (region, user, kind) prefixes of `kinds` kinds, as a tuple IN list from `$first` on. */
export const prefixList = (kinds: number, first: number) =>
  Array.from({ length: kinds }, (_, i) => `($1, $2::uuid, $${first + i})`).join(', ');
