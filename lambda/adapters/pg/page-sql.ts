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

/**
 * Live memories newest first, keyset-paged, read only: $1 region, $2 user, $3 page size + 1,
 * $4/$5 cursor (created_at, id) or nulls, the kinds ($6…), then (kind, cutoff) pairs.
 */
export function browseSql(kinds: number, ttlKinds: number): string {
  return `
SELECT ${MEMORY_COLUMNS('m').replace('m.id,', 'm.id::text AS id,')}, ${CONFLICTS('m')} AS conflicts
  FROM memories AS m
 WHERE (m.region, m.user_id, m.kind) IN (${prefixList(kinds, 6)})
   AND ($4::timestamptz IS NULL OR (m.created_at, m.id) < ($4::timestamptz, $5::uuid))
   AND ${unexpired(ttlKinds, 6 + kinds, 'm')}
 ORDER BY m.created_at DESC, m.id DESC
 LIMIT $3::int4`;
}

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
