/**
 * The runtime SQL of the memory store, in the subset PostgreSQL and CockroachDB both accept.
 * Every statement is one round trip and atomic on its own. Vector reads carry only prefix
 * equality (region, user, kind) so that CockroachDB's vector index applies; every other check
 * runs on the rows they return.
 */

/** True for a row of one kind that is not expired: `$cutoff` is the kind's expired-before instant, null without a TTL. */
const liveAt = (alias: string, cutoff: string) =>
  `(${cutoff}::timestamptz IS NULL OR ${alias}.pinned OR ${alias}.last_useful_at >= ${cutoff}::timestamptz)`;

/**
 * Journal rows for expired memories read from `source` (columns created_at, last_useful_at,
 * recall_count, and kind unless `kind` names it): a line's time is the instant the memory expired,
 * its last usefulness plus the kind's TTL (`ttl`, an interval), whenever it was removed; the age
 * is the memory's at that instant (decision 0055).
 */
const expiryLines = (source: string, region: string, user: string, kind: string, ttl: string) =>
  `SELECT gen_random_uuid(), ${region}, ${user}, e.last_useful_at + ${ttl}, ${kind}, 'expiry',
         CAST(extract(epoch FROM e.last_useful_at + ${ttl} - e.created_at) AS INT8), e.recall_count
    FROM ${source} AS e`;

/**
 * The nearest live memory of the same (region, user, kind), and any exact restatement (same
 * fingerprint) with whether it is live. $1 region, $2 user, $3 kind, $4 embedding, $5 fingerprint,
 * $6 the kind's expired-before instant (null without a TTL), $7 vector candidates (1, plus the
 * kind's ceiling when it has a TTL, so that expired rows cannot hide the nearest live one).
 */
export const NEIGHBOURS = `
SELECT * FROM (
  SELECT 'nearest' AS role, n.id::text AS id, n.content, n.distance, true AS live
    FROM (SELECT id, content, pinned, last_useful_at, embedding <=> $4::vector AS distance
            FROM memories
           WHERE region = $1 AND user_id = $2::uuid AND kind = $3
           ORDER BY embedding <=> $4::vector
           LIMIT $7::int4) AS n
   WHERE ${liveAt('n', '$6')}
   ORDER BY n.distance, n.id
   LIMIT 1
) AS nearest
UNION ALL
SELECT 'exact' AS role, x.id::text AS id, NULL AS content, NULL AS distance, ${liveAt('x', '$6')} AS live
  FROM memories AS x
 WHERE x.region = $1 AND x.user_id = $2::uuid AND x.kind = $3 AND x.fingerprint = $5`;

/**
 * Removes the expired memories of one (region, user, kind), journaled as expiry: $1 region,
 * $2 user, $3 kind, $4 expired-before, $5 now. What a write that meets an expired exact
 * restatement does first, so that the restatement is stored as a new memory.
 */
export const EXPIRE_PARTITION = `
WITH gone AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND NOT pinned AND last_useful_at < $4::timestamptz
  RETURNING created_at, last_useful_at, recall_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', '$1', '$2::uuid', '$3', '($5::timestamptz - $4::timestamptz)')}
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int4 AS expired`;

/** Prepends one source to a bounded newest-first JSONB list (`jsonb - int` drops the overflow). */
const RESTATED_BY_PUSH = (target: string, source: string, keep: string) =>
  `(jsonb_build_array(${source}::jsonb) || ${target}.restated_by) - ${keep}::int4`;

/**
 * Insert one memory, remove the partition's expired memories, evict past the ceiling, journal each
 * removal, link a conflict: one statement.
 * $1 region, $2 user, $3 kind, $4 id, $5 content, $6 fingerprint, $7 embedding, $8 pinned,
 * $9 now, $10 origin, $11 agent, $12 client, $13 source json, $14 sources kept, $15 ceiling,
 * $16 pin limit, $17 conflicting memory id (or null), $18 lexemes (a tsvector literal of its terms),
 * $19 the kind's expired-before instant (null without a TTL).
 * Expired rows count for nothing: the ceiling counts the live rows, and the expired ones go in the
 * same statement, journaled as expiry (never as ceiling). The victims come from the statement's
 * snapshot, which cannot see the new row: the excess is `live + 1 - ceiling`, taken from the least
 * recently useful live non-pinned rows other than the one the new memory conflicts with (both
 * stay, so the agent can resolve the conflict). If a concurrent call stored the same fingerprint
 * first, the insert becomes a merge into that row instead; if that row is expired, nothing is
 * written (`id` null with both checks passed) and the caller expires it before trying again: a
 * restatement never brings an expired memory back.
 */
export const INSERT = `
WITH kind_rows AS (
  SELECT id, pinned, last_useful_at, fingerprint FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND kind = $3
), live_rows AS (
  SELECT id, pinned, last_useful_at FROM kind_rows AS k WHERE ${liveAt('k', '$19')}
), stale AS (
  SELECT id FROM kind_rows AS k WHERE NOT ${liveAt('k', '$19')} AND k.fingerprint <> $6
), excess AS (
  SELECT GREATEST(0, (SELECT count(*) FROM live_rows) + 1 - $15::int4) AS n
), victims AS (
  SELECT id FROM (
    SELECT id, row_number() OVER (ORDER BY last_useful_at, id) AS rank
      FROM live_rows WHERE NOT pinned AND ($17::uuid IS NULL OR id <> $17::uuid)
  ) AS ranked WHERE rank <= (SELECT n FROM excess)
), allowed AS (
  SELECT (NOT $8::bool OR (SELECT count(*) FROM memories
                            WHERE region = $1 AND user_id = $2::uuid AND pinned) < $16::int4) AS pin_ok,
         (SELECT count(*) FROM victims) >= (SELECT n FROM excess) AS room_ok
), written AS (
  INSERT INTO memories AS m (id, region, user_id, kind, content, fingerprint, embedding, lexemes, pinned,
                             created_at, last_useful_at, origin, agent, client)
  SELECT $4::uuid, $1, $2::uuid, $3, $5, $6, $7::vector, $18::tsvector, $8::bool, $9::timestamptz, $9::timestamptz,
         $10, $11, $12
    FROM allowed WHERE pin_ok AND room_ok
  ON CONFLICT (region, user_id, kind, fingerprint) DO UPDATE
     SET restatements = m.restatements + 1,
         last_useful_at = excluded.last_useful_at,
         pinned = m.pinned OR excluded.pinned,
         restated_by = ${RESTATED_BY_PUSH('m', '$13', '$14')}
   WHERE ${liveAt('m', '$19')}
  RETURNING m.id, m.created_at, m.recall_count
), evicted AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND id IN (SELECT id FROM victims)
     AND EXISTS (SELECT 1 FROM written WHERE written.id = $4::uuid)
  RETURNING created_at, recall_count
), expired AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND id IN (SELECT id FROM stale)
     AND EXISTS (SELECT 1 FROM written WHERE written.id = $4::uuid)
  RETURNING created_at, last_useful_at, recall_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), $1, $2::uuid, $9::timestamptz, $3, 'ceiling',
         CAST(extract(epoch FROM $9::timestamptz - created_at) AS INT8), recall_count FROM evicted
  UNION ALL
  ${expiryLines('expired', '$1', '$2::uuid', '$3', '($9::timestamptz - $19::timestamptz)')}
  UNION ALL
  SELECT gen_random_uuid(), $1, $2::uuid, $9::timestamptz, $3, 'duplicate',
         CAST(extract(epoch FROM $9::timestamptz - created_at) AS INT8), recall_count
    FROM written WHERE written.id <> $4::uuid
  RETURNING 1
), linked AS (
  INSERT INTO memory_links (memory_id, linked_id, region, user_id)
  SELECT pair.a, pair.b, $1, $2::uuid
    FROM written, (SELECT $4::uuid AS a, $17::uuid AS b UNION ALL SELECT $17::uuid, $4::uuid) AS pair
   WHERE written.id = $4::uuid AND $17::uuid IS NOT NULL
  RETURNING 1
)
SELECT (SELECT id::text FROM written) AS id,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT room_ok FROM allowed) AS room_ok,
       (SELECT count(*) FROM evicted)::int4 AS evicted,
       (SELECT count(*) FROM expired)::int4 AS expired,
       (SELECT count(*) FROM journaled)::int4 AS journaled,
       (SELECT count(*) FROM linked)::int4 AS linked`;

/**
 * Absorb a restatement into an existing memory and journal the merge: one statement.
 * $1 region, $2 user, $3 target id, $4 pin, $5 now, $6 source json, $7 sources kept, $8 pin limit,
 * $9 the target kind's expired-before instant (null without a TTL): an expired target is gone.
 */
export const MERGE = `
WITH target AS (
  SELECT t.id, t.pinned FROM memories AS t
   WHERE t.region = $1 AND t.user_id = $2::uuid AND t.id = $3::uuid AND ${liveAt('t', '$9')}
), allowed AS (
  SELECT (NOT $4::bool OR t.pinned
          OR (SELECT count(*) FROM memories WHERE region = $1 AND user_id = $2::uuid AND pinned) < $8::int4) AS pin_ok
    FROM target AS t
), updated AS (
  UPDATE memories AS m
     SET restatements = m.restatements + 1,
         last_useful_at = GREATEST(m.last_useful_at, $5::timestamptz),
         pinned = m.pinned OR $4::bool,
         restated_by = ${RESTATED_BY_PUSH('m', '$6', '$7')}
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = $3::uuid AND (SELECT pin_ok FROM allowed)
     AND ${liveAt('m', '$9')}
  RETURNING m.kind, m.created_at, m.recall_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), $1, $2::uuid, $5::timestamptz, kind, 'duplicate',
         CAST(extract(epoch FROM $5::timestamptz - created_at) AS INT8), recall_count FROM updated
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT count(*) FROM updated)::int4 AS updated`;

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

/** One arm's part of a fused score: its weight (the fusion array's `at`-th element) over k + rank. */
const fusedPart = (at: number) => `($8::float8[])[${at}] / (($8::float8[])[1] + CAST(rank AS FLOAT8))`;

/** The vector arm: nearest first over the vector index, then the live ones ranked. */
const vectorArm = (prefixes: string, live: string) => `vector_rows AS (
  SELECT id, kind, pinned, last_useful_at, embedding <=> $3::vector AS distance
    FROM memories
   WHERE (region, user_id, kind) IN (${prefixes})
   ORDER BY embedding <=> $3::vector
   LIMIT $4::int4
), vector_arm AS (
  SELECT v.id, row_number() OVER (ORDER BY v.distance, v.id) AS rank
    FROM vector_rows AS v
   WHERE ${live}
   ORDER BY v.distance, v.id
   LIMIT $7::int4
)`;

/** The lexical arm: every memory holding a query term, over the inverted index, scored by BM25 (b = 0). */
const lexicalArm = (prefixes: string, live: string, query: number) => `lexical_rows AS (
  SELECT id, kind, pinned, last_useful_at, lexemes
    FROM memories
   WHERE (region, user_id, kind) IN (${prefixes}) AND lexemes @@ $${query}::tsquery
), partition_size AS (
  SELECT CAST(count(*) AS FLOAT8) AS n FROM memories WHERE (region, user_id, kind) IN (${prefixes})
), matches AS (
  SELECT r.id, t.term FROM lexical_rows AS r, unnest($${query + 1}::text[]) AS t(term)
   WHERE r.lexemes @@ t.term::tsquery
), rarity AS (
  SELECT m.term, ln(1 + ((SELECT n FROM partition_size) - m.df + 0.5) / (m.df + 0.5)) AS idf
    FROM (SELECT term, CAST(count(*) AS FLOAT8) AS df FROM matches GROUP BY term) AS m
), lexical_scores AS (
  SELECT m.id, sum(r.idf) AS score
    FROM matches AS m JOIN rarity AS r ON r.term = m.term
   GROUP BY m.id
), lexical_arm AS (
  SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.id) AS rank
    FROM lexical_scores AS s JOIN lexical_rows AS l ON l.id = s.id
   WHERE ${live}
   ORDER BY s.score DESC, s.id
   LIMIT $7::int4
)`;

/** The columns every memory answer carries, read from `alias`. */
const MEMORY_COLUMNS = (alias: string) =>
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
const CONFLICTS = (alias: string) =>
  `ARRAY(SELECT l.linked_id::text FROM memory_links AS l WHERE l.region = $1 AND l.memory_id = ${alias}.id ORDER BY 1)`;

/** Recall's last step: the hits become useful (recall count and last usefulness). */
const TOUCH_HITS = `UPDATE memories AS m
     SET recall_count = m.recall_count + 1,
         last_useful_at = GREATEST(m.last_useful_at, $6::timestamptz)
    FROM hits
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = hits.id
  RETURNING ${MEMORY_COLUMNS('m')}, hits.score, m.embedding <=> $3::vector AS distance`;

/** The read-only twin of {@link TOUCH_HITS}: the same rows, nothing written; $6 is the instant read at. */
const READ_HITS = `SELECT ${MEMORY_COLUMNS('m')}, hits.score, m.embedding <=> $3::vector AS distance,
         $6::timestamptz AS read_at
    FROM memories AS m JOIN hits ON hits.id = m.id
   WHERE m.region = $1 AND m.user_id = $2::uuid`;

/**
 * The best unexpired memories first, marking each returned one useful: one statement.
 * $1 region, $2 user, $3 embedding, $4 vector candidates, $5 limit, $6 now, $7 depth of each arm,
 * $8 fusion as FLOAT8[] {k, vector weight, lexical weight}, then the kinds searched ($9…),
 * then (kind, cutoff) pairs for kinds with a TTL, then, with a lexical arm, the query as one
 * OR tsquery and its terms one by one (each a quoted one-term tsquery).
 *
 * Each arm reads one index with the (region, user, kind) prefix pinned and nothing else: the
 * vector index ordered by distance, the inverted index by `lexemes @@ query`; expiry is checked
 * on the rows they return. The lexical arm ranks by BM25 without length normalisation, each
 * term's rarity counted over the caller's own partition (every memory that holds a query term
 * is a lexical row, so counting matches among them is counting over the partition). The ranks
 * are fused: score = Σ weight / (k + rank), reciprocal rank fusion. An arm of weight 0 still runs
 * but counts for nothing, and what only it found is not returned (the lexical arm alone).
 * With `touch` false the same ranking is read without the UPDATE: looking is not recalling
 * (the memory page's search); $6 is then only echoed back.
 */
export function recallSql(kinds: number, ttlKinds: number, lexical: boolean, touch = true): string {
  const prefixes = Array.from({ length: kinds }, (_, i) => `($1, $2::uuid, $${9 + i})`).join(', ');
  const cutoffs = 9 + kinds;
  const ctes = [vectorArm(prefixes, unexpired(ttlKinds, cutoffs, 'v'))];
  const parts = [`SELECT id, ${fusedPart(2)} AS part FROM vector_arm`];
  if (lexical) {
    ctes.push(lexicalArm(prefixes, unexpired(ttlKinds, cutoffs, 'l'), cutoffs + 2 * ttlKinds));
    parts.push(`SELECT id, ${fusedPart(3)} AS part FROM lexical_arm`);
  }
  return `
WITH ${ctes.join(', ')}, hits AS (
  SELECT arms.id, sum(arms.part) AS score
    FROM (${parts.join(' UNION ALL ')}) AS arms
   GROUP BY arms.id
  HAVING sum(arms.part) > 0
   ORDER BY score DESC, arms.id
   LIMIT $5::int4
), found AS (
  ${touch ? TOUCH_HITS : READ_HITS}
)
SELECT t.id::text AS id, t.kind, t.content, t.pinned, t.created_at, t.last_useful_at, t.recall_count,
       t.restatements, t.origin, t.agent, t.client, t.restated_by, t.distance, t.score,
       ${CONFLICTS('t')} AS conflicts
  FROM found AS t
 ORDER BY t.score DESC, t.id`;
}

/**
 * The caller's live memories among some ids: $1 region, $2 user, $3 ids, then (kind, cutoff) pairs.
 * An expired memory is gone already: forgetting it deletes nothing, and the sweeper journals it.
 */
export function forgetIdsSql(ttlKinds: number): string {
  return `
DELETE FROM memories AS m
 WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = ANY($3::uuid[]) AND ${unexpired(ttlKinds, 4, 'm')}
RETURNING m.id::text AS id`;
}

/**
 * Every memory of the caller (of one kind, or all) and the matching journal lines: $1 region,
 * $2 user, $3 kind or null for every kind, then (kind, cutoff) pairs. Expired rows go too, but only
 * live ones are counted as forgotten.
 */
export function forgetAllSql(ttlKinds: number): string {
  return `
WITH gone AS (
  DELETE FROM memories WHERE region = $1 AND user_id = $2::uuid AND ($3::text IS NULL OR kind = $3::text)
  RETURNING kind, pinned, last_useful_at
), lines AS (
  DELETE FROM journal WHERE region = $1 AND user_id = $2::uuid AND ($3::text IS NULL OR kind = $3::text)
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone AS g WHERE ${unexpired(ttlKinds, 4, 'g')})::int4 AS memories,
       (SELECT count(*) FROM lines)::int4 AS journal_lines`;
}

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
 * One bounded batch of expired memories of one kind in one region, journaled: $1 region,
 * $2 kind, $3 expired-before, $4 batch, $5 now. The DELETE re-checks expiry, so a memory recalled
 * meanwhile survives, and a row two sweepers both picked is deleted (and journaled) once.
 */
export const SWEEP_EXPIRED = `
WITH victims AS (
  SELECT id FROM memories
   WHERE region = $1 AND kind = $2 AND last_useful_at < $3::timestamptz AND NOT pinned
   ORDER BY last_useful_at
   LIMIT $4::int4
), gone AS (
  DELETE FROM memories
   WHERE region = $1 AND id IN (SELECT id FROM victims)
     AND last_useful_at < $3::timestamptz AND NOT pinned
  RETURNING user_id, kind, created_at, last_useful_at, recall_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', '$1', 'e.user_id', 'e.kind', '($5::timestamptz - $3::timestamptz)')}
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int4 AS expired`;

/** One bounded batch of journal lines past retention: $1 region, $2 older-than, $3 batch. */
export const TRIM_JOURNAL = `
WITH old AS (
  SELECT id FROM journal WHERE region = $1 AND at < $2::timestamptz ORDER BY at LIMIT $3::int4
), gone AS (
  DELETE FROM journal WHERE region = $1 AND id IN (SELECT id FROM old) RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int4 AS trimmed`;

/** The (region, user, kind) prefixes of `kinds` kinds, as a tuple IN list from `$first` on. */
const prefixList = (kinds: number, first: number) =>
  Array.from({ length: kinds }, (_, i) => `($1, $2::uuid, $${first + i})`).join(', ');

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
