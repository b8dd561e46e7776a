import { CONFLICTS, MEMORY_COLUMNS, prefixList, unexpired } from './sql-parts.js';

/** The memory page's reads and `curation_state`'s: counts, pages of memories and journal lines, what goes next. Read only. */

/** Live memories per kind and pinned: $1 region, $2 user, then (kind, cutoff) pairs. */
export function countsSql(ttlKinds: number): string {
  return `
SELECT m.kind, count(*)::int4 AS total, sum(CASE WHEN m.pinned THEN 1 ELSE 0 END)::int4 AS pinned
  FROM memories AS m
 WHERE m.region = $1 AND m.user_id = $2::uuid AND ${unexpired(ttlKinds, 3, 'm')}
 GROUP BY m.kind`;
}

/** Newest journal lines first, keyset-paged: $1 region, $2 user, $3 page size + 1, $4/$5 cursor. */
export const JOURNAL_PAGE = `
SELECT j.id::text AS line_id, j.at, j.kind, j.rule, j.age_s, j.recall_count
  FROM journal AS j
 WHERE j.region = $1 AND j.user_id = $2::uuid
   AND ($4::timestamptz IS NULL OR (j.at, j.id) < ($4::timestamptz, $5::uuid))
 ORDER BY j.at DESC, j.id DESC
 LIMIT $3::int4`;

/** The orders the page may list memories in: newest first, most recently useful first, most recalled first. */
export const BROWSE_ORDERS = {
  created: { column: 'created_at', type: 'timestamptz' },
  last_useful: { column: 'last_useful_at', type: 'timestamptz' },
  recalls: { column: 'recall_count', type: 'int4' },
} as const;
export type BrowseOrder = keyof typeof BROWSE_ORDERS;

/**
 * Live memories in one of the BROWSE_ORDERS (then by id), keyset-paged, filtered, with the number
 * of memories matching the filters on every row (`total`, whatever the cursor), read only:
 * $1 region, $2 user, $3 page size + 1, $4/$5 cursor (the order's value as text, id) or nulls,
 * $6 agent, $7 client, $8 a piece of the origin (any case), $9 pinned, $10 conflicting (each null
 * for any), the kinds ($11…), then (kind, cutoff) pairs.
 */
export function browseSql(kinds: number, ttlKinds: number, order: BrowseOrder = 'created'): string {
  const { column, type } = BROWSE_ORDERS[order];
  return `
WITH matching AS (
  SELECT ${MEMORY_COLUMNS('m')}
    FROM memories AS m
   WHERE (m.region, m.user_id, m.kind) IN (${prefixList(kinds, 11)})
     AND ${unexpired(ttlKinds, 11 + kinds, 'm')}
     AND ($6::text IS NULL OR m.agent = $6::text)
     AND ($7::text IS NULL OR m.client = $7::text)
     AND ($8::text IS NULL OR strpos(lower(COALESCE(m.origin, '')), lower($8::text)) > 0)
     AND ($9::bool IS NULL OR m.pinned = $9::bool)
     AND ($10::bool IS NULL OR ((SELECT count(*) FROM memory_links AS l WHERE l.region = $1 AND l.memory_id = m.id) > 0) = $10::bool)
)
SELECT ${MEMORY_COLUMNS('p').replace('p.id,', 'p.id::text AS id,')}, ${CONFLICTS('p')} AS conflicts,
       (SELECT count(*) FROM matching)::int4 AS total
  FROM matching AS p
 WHERE ($4::text IS NULL OR (p.${column}, p.id) < (CAST($4::text AS ${type}), $5::uuid))
 ORDER BY p.${column} DESC, p.id DESC
 LIMIT $3::int4`;
}

/** One live memory of the caller, with its conflict links, read only: $1 region, $2 user, $3 id, then (kind, cutoff) pairs. */
export function memoryByIdSql(ttlKinds: number): string {
  return `
SELECT ${MEMORY_COLUMNS('m').replace('m.id,', 'm.id::text AS id,')}, ${CONFLICTS('m')} AS conflicts
  FROM memories AS m
 WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = $3::uuid AND ${unexpired(ttlKinds, 4, 'm')}`;
}

/**
 * Who wrote the caller's live memories: each (agent, client) with how many, most first, for the
 * page's filters. $1 region, $2 user, $3 how many pairs at most, the kinds ($4…), then (kind, cutoff) pairs.
 */
export function facetsSql(kinds: number, ttlKinds: number): string {
  return `
SELECT m.agent, m.client, count(*)::int4 AS memories
  FROM memories AS m
 WHERE (m.region, m.user_id, m.kind) IN (${prefixList(kinds, 4)}) AND ${unexpired(ttlKinds, 4 + kinds, 'm')}
 GROUP BY m.agent, m.client
 ORDER BY 3 DESC, 1, 2
 LIMIT $3::int4`;
}

/** Journal lines per hour (whole hours since the epoch, UTC) and rule since an instant: $1 region, $2 user, $3 since. */
export const JOURNAL_HOURLY = `
SELECT CAST(floor(extract(epoch FROM j.at) / 3600) AS INT8) AS hour, j.rule, count(*)::int4 AS lines
  FROM journal AS j
 WHERE j.region = $1 AND j.user_id = $2::uuid AND j.at >= $3::timestamptz
 GROUP BY 1, 2
 ORDER BY 1, 2`;

/** Journal lines per UTC day and rule since an instant: $1 region, $2 user, $3 since. */
export const JOURNAL_DAILY = `
SELECT CAST(CAST(j.at AT TIME ZONE 'UTC' AS DATE) AS TEXT) AS day, j.rule, count(*)::int4 AS lines
  FROM journal AS j
 WHERE j.region = $1 AND j.user_id = $2::uuid AND j.at >= $3::timestamptz
 GROUP BY 1, 2
 ORDER BY 1, 2`;

/**
 * Per kind, the first unpinned live memories in eviction order (the INSERT's victims' order,
 * `last_useful_at, id`), read only: $1 region, $2 user, $3 how many per kind, the kinds ($4…),
 * then (kind, cutoff) pairs. For a kind with a TTL the same order is the order of expiry.
 */
export function nextToGoSql(kinds: number, ttlKinds: number): string {
  return `
SELECT r.id::text AS id, r.kind, r.content, r.last_useful_at, r.recall_count
  FROM (SELECT m.id, m.kind, m.content, m.last_useful_at, m.recall_count,
               row_number() OVER (PARTITION BY m.kind ORDER BY m.last_useful_at, m.id) AS rank
          FROM memories AS m
         WHERE (m.region, m.user_id, m.kind) IN (${prefixList(kinds, 4)})
           AND NOT m.pinned AND ${unexpired(ttlKinds, 4 + kinds, 'm')}) AS r
 WHERE r.rank <= $3::int4
 ORDER BY r.kind, r.rank`;
}
