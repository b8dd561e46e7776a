import { expiryLines, forgottenTerms, liveAt, prefixList, unexpired } from './sql-parts.js';

/**
 * The memory store's writes. A write that a ceiling or the pin limit depends on (insert, a merge
 * that pins) also writes its partition's row in `memory_partitions` — the (region, user, kind)
 * row, and the user's own row (kind '') when it pins — so that two such writes of one partition
 * always touch a common row and cannot both commit on stale reads (decision 0056). Every other
 * write only removes, or adds commutatively.
 */

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
 * Creates or locks a write's partition rows, first in a queued write's transaction: $1 region,
 * $2 user, $3 kind (null: none), $4 whether the user's own row is wanted too (a write that pins).
 * The user's row comes first, in every statement that takes both, so two writers never wait on
 * each other in opposite orders. Each row gets a new version, so a writer that read before this
 * transaction committed fails instead of writing on what it read.
 */
export const LOCK_PARTITION = `
INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
SELECT $1, $2::uuid, '', 1 WHERE $4::bool
UNION ALL
SELECT $1, $2::uuid, $3::text, 1 WHERE $3::text IS NOT NULL
ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
RETURNING p.kind`;

/**
 * The last place taken in a (user, origin, kind): 0 when the origin is new there. A memory written
 * with an origin takes the next place, so that recall can read what follows a hit by key (decision
 * 0082). Every writer of a (user, kind) writes its partition's row too, so two that read the same
 * last place cannot both commit: the second fails and retries behind the first.
 */
const LAST_PLACE = (origin: string, kind: string) => `COALESCE((SELECT max(o.origin_seq) FROM memories AS o
                    WHERE o.region = $1 AND o.user_id = $2::uuid AND o.origin IS NOT NULL AND o.origin = ${origin}
                      AND o.kind = ${kind}), 0)`;

/** Prepends one source to a bounded newest-first JSONB list (`jsonb - int` drops the overflow). */
const RESTATED_BY_PUSH = (target: string, source: string, keep: string) =>
  `(jsonb_build_array(${source}::jsonb) || ${target}.restated_by) - ${keep}::int4`;

/**
 * Insert one memory with its postings, remove the partition's expired memories, evict past the
 * ceiling, journal each removal, link a conflict, keep the partition's counts and document
 * frequencies: one statement.
 * $1 region, $2 user, $3 kind, $4 id, $5 content, $6 fingerprint, $7 embedding, $8 pinned,
 * $9 now, $10 origin, $11 agent, $12 client, $13 source json, $14 sources kept, $15 ceiling,
 * $16 pin limit, $17 conflicting memory id (or null), $18 its distinct terms, $19 the kind's
 * expired-before instant (null without a TTL), $20 each term's frequency, $21 its length (the sum).
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
  INSERT INTO memories AS m (id, region, user_id, kind, content, fingerprint, embedding, terms, term_count, pinned,
                             expires, created_at, last_useful_at, origin, origin_seq, agent, client)
  SELECT $4::uuid, $1, $2::uuid, $3, $5, $6, $7::vector, $18::text[], $21::int4, $8::bool,
         $19::timestamptz IS NOT NULL AND NOT $8::bool, $9::timestamptz, $9::timestamptz, $10,
         CASE WHEN $10::text IS NOT NULL THEN ${LAST_PLACE('$10::text', '$3')} + 1 END, $11, $12
    FROM allowed WHERE pin_ok AND room_ok
  ON CONFLICT (region, user_id, kind, fingerprint) DO UPDATE
     SET restatements = m.restatements + 1,
         last_useful_at = excluded.last_useful_at,
         pinned = m.pinned OR excluded.pinned,
         expires = m.expires AND NOT excluded.pinned,
         restated_by = ${RESTATED_BY_PUSH('m', '$13', '$14')}
   WHERE ${liveAt('m', '$19')}
  RETURNING m.id, m.created_at, m.recall_count
), fresh AS (
  SELECT 1 AS stored FROM written WHERE written.id = $4::uuid
), evicted AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND id IN (SELECT id FROM victims) AND EXISTS (SELECT 1 FROM fresh)
  RETURNING id, created_at, recall_count, terms, term_count
), expired AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND id IN (SELECT id FROM stale) AND EXISTS (SELECT 1 FROM fresh)
  RETURNING id, created_at, last_useful_at, recall_count, terms, term_count
), removed AS (
  SELECT id, terms, term_count FROM evicted UNION ALL SELECT id, terms, term_count FROM expired
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
    FROM fresh, (SELECT $4::uuid AS a, $17::uuid AS b UNION ALL SELECT $17::uuid, $4::uuid) AS pair
   WHERE $17::uuid IS NOT NULL
  RETURNING 1
), posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl)
  SELECT $1, $2::uuid, $3, t.term, $4::uuid, t.tf, $21::int4
    FROM fresh, unnest($18::text[], $20::int4[]) AS t(term, tf)
  RETURNING 1
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = $1 AND p.user_id = $2::uuid AND p.kind = $3
     AND (p.term, p.memory_id) IN (SELECT t.term, r.id FROM removed AS r, unnest(r.terms) AS t(term))
  RETURNING 1
), term_changes AS (
  SELECT c.term, CAST(sum(c.change) AS INT4) AS change FROM (
    SELECT t.term, 1 AS change FROM fresh, unnest($18::text[]) AS t(term)
    UNION ALL
    SELECT t.term, -1 AS change FROM removed AS r, unnest(r.terms) AS t(term)
  ) AS c GROUP BY c.term HAVING sum(c.change) <> 0
), rarity AS (
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df)
  SELECT $1, $2::uuid, $3, c.term, c.change FROM term_changes AS c
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = d.df + excluded.df
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, memories, term_total, writes)
  SELECT $1, $2::uuid, '', 0, 0, 1 WHERE $8::bool AND EXISTS (SELECT 1 FROM written)
  UNION ALL
  SELECT $1, $2::uuid, $3, 1 - (SELECT count(*) FROM removed), $21::int4 - (SELECT COALESCE(sum(term_count), 0) FROM removed), 1
    FROM fresh
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = p.memories + excluded.memories, term_total = p.term_total + excluded.term_total, writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT id::text FROM written) AS id,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT room_ok FROM allowed) AS room_ok,
       (SELECT count(*) FROM evicted)::int4 AS evicted,
       (SELECT count(*) FROM expired)::int4 AS expired,
       (SELECT count(*) FROM journaled)::int4 AS journaled,
       (SELECT count(*) FROM linked)::int4 AS linked,
       (SELECT count(*) FROM posted)::int4 AS posted,
       (SELECT count(*) FROM unposted)::int4 AS unposted,
       (SELECT count(*) FROM rarity)::int4 AS rarity,
       (SELECT count(*) FROM counted)::int4 AS counted`;

/**
 * Absorb a restatement into an existing memory and journal the merge: one statement.
 * $1 region, $2 user, $3 target id, $4 pin, $5 now, $6 source json, $7 sources kept, $8 pin limit,
 * $9 the target kind's expired-before instant (null without a TTL): an expired target is gone.
 * A merge that pins writes the user's partition row, so that pin counts hold under concurrency.
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
         expires = m.expires AND NOT $4::bool,
         restated_by = ${RESTATED_BY_PUSH('m', '$6', '$7')}
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = $3::uuid AND (SELECT pin_ok FROM allowed)
     AND ${liveAt('m', '$9')}
  RETURNING m.kind, m.created_at, m.recall_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), $1, $2::uuid, $5::timestamptz, kind, 'duplicate',
         CAST(extract(epoch FROM $5::timestamptz - created_at) AS INT8), recall_count FROM updated
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
  SELECT $1, $2::uuid, '', 1 WHERE $4::bool AND EXISTS (SELECT 1 FROM updated)
  ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT count(*) FROM updated)::int4 AS updated,
       (SELECT count(*) FROM counted)::int4 AS counted`;

/**
 * Removes the expired memories of one (region, user, kind), journaled as expiry: $1 region,
 * $2 user, $3 kind, $4 expired-before, $5 now. What a write that meets an expired exact
 * restatement does first, so that the restatement is stored as a new memory.
 */
export const EXPIRE_PARTITION = `
WITH gone AS (
  DELETE FROM memories
   WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND NOT pinned AND last_useful_at < $4::timestamptz
  RETURNING id, user_id, kind, created_at, last_useful_at, recall_count, terms, term_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', '$1', '$2::uuid', '$3', '($5::timestamptz - $4::timestamptz)')}
  RETURNING 1
), ${forgottenTerms('gone', '$1', '$2::uuid')}
SELECT (SELECT count(*) FROM gone)::int4 AS expired`;

/**
 * The caller's live memories among some ids: $1 region, $2 user, $3 ids, then (kind, cutoff) pairs.
 * An expired memory is gone already: forgetting it deletes nothing, and the sweeper journals it.
 */
export function forgetIdsSql(ttlKinds: number): string {
  return `
WITH gone AS (
  DELETE FROM memories AS m
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = ANY($3::uuid[]) AND ${unexpired(ttlKinds, 4, 'm')}
  RETURNING m.id, m.user_id, m.kind, m.terms, m.term_count
), ${forgottenTerms('gone', '$1', '$2::uuid')}
SELECT id::text AS id FROM gone`;
}

/**
 * Every memory of the caller (of one kind, or all) and the matching journal lines: $1 region,
 * $2 user, $3 kind or null for every kind, then (kind, cutoff) pairs. Expired rows go too, but only
 * live ones are counted as forgotten. With `cells` (PostgreSQL, PGlite), the partitions' cells too.
 */
export function forgetAllSql(ttlKinds: number, cells = false): string {
  // The cells' centroids are means of the memories' vectors (decision 0083): they go with them.
  const centroids = cells
    ? `), centroids AS (
  DELETE FROM memory_cells WHERE region = $1 AND user_id = $2::uuid AND ($3::text IS NULL OR kind = $3::text)
  RETURNING 1`
    : '';
  return `
WITH gone AS (
  DELETE FROM memories WHERE region = $1 AND user_id = $2::uuid AND ($3::text IS NULL OR kind = $3::text)
  RETURNING id, user_id, kind, pinned, last_useful_at, terms, term_count
${centroids}), lines AS (
  DELETE FROM journal WHERE region = $1 AND user_id = $2::uuid AND ($3::text IS NULL OR kind = $3::text)
  RETURNING 1
), ${forgottenTerms('gone', '$1', '$2::uuid')}
SELECT (SELECT count(*) FROM gone AS g WHERE ${unexpired(ttlKinds, 4, 'g')})::int4 AS memories,
       (SELECT count(*) FROM lines)::int4 AS journal_lines`;
}

/**
 * One bounded batch of expired memories of one kind in one region, journaled: $1 region,
 * $2 kind, $3 expired-before, $4 batch, $5 now. It walks the expiry index, which holds only rows
 * of kinds with a TTL (`expires`). The DELETE re-checks expiry, so a memory recalled meanwhile
 * survives, and a row two sweepers both picked is deleted (and journaled) once.
 */
export const SWEEP_EXPIRED = `
WITH victims AS (
  SELECT id FROM memories
   WHERE region = $1 AND kind = $2 AND expires AND last_useful_at < $3::timestamptz AND NOT pinned
   ORDER BY last_useful_at
   LIMIT $4::int4
), gone AS (
  DELETE FROM memories
   WHERE region = $1 AND id IN (SELECT id FROM victims)
     AND last_useful_at < $3::timestamptz AND NOT pinned
  RETURNING id, user_id, kind, created_at, last_useful_at, recall_count, terms, term_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', '$1', 'e.user_id', 'e.kind', '($5::timestamptz - $3::timestamptz)')}
  RETURNING 1
), ${forgottenTerms('gone', '$1')}
SELECT (SELECT count(*) FROM gone)::int4 AS expired`;

/**
 * One bounded batch of a kind's unpinned memories not yet in the expiry index, put there: $1 region,
 * $2 kind, $3 batch. Run once per region for a kind that gained a TTL (and after the migration that
 * made the index partial), so that the sweeper finds memories written before.
 */
export const MARK_EXPIRING = `
UPDATE memories SET expires = true
 WHERE region = $1 AND id IN (SELECT id FROM memories WHERE region = $1 AND kind = $2 AND NOT pinned AND NOT expires LIMIT $3::int4)
RETURNING 1`;

/** Which kinds each region's sweeper has put into the expiry index: a JSON object of region → kinds. */
export const EXPIRING_KINDS = "SELECT value FROM naaba_settings WHERE name = 'expiring_kinds'";

/**
 * Records one region's kinds in that object, in one UPDATE of the row migration 0005 seeded, so
 * that two regions' sweepers never lose each other's entry: $1 region, $2 kinds as JSON.
 */
export const RECORD_EXPIRING_KINDS = `
UPDATE naaba_settings SET value = CAST(CAST(value AS JSONB) || jsonb_build_object($1::text, CAST($2 AS JSONB)) AS TEXT)
 WHERE name = 'expiring_kinds'`;

/** One bounded batch of document frequencies that came down to zero, cleared: $1 region, $2 batch. */
export const CLEAR_EMPTY_TERMS = `
DELETE FROM memory_partition_terms
 WHERE region = $1 AND (user_id, kind, term) IN (
   SELECT user_id, kind, term FROM memory_partition_terms WHERE region = $1 AND df <= 0 LIMIT $2::int4)
RETURNING 1`;

/** One bounded batch of journal lines past retention: $1 region, $2 older-than, $3 batch. */
export const TRIM_JOURNAL = `
WITH old AS (
  SELECT id FROM journal WHERE region = $1 AND at < $2::timestamptz ORDER BY at LIMIT $3::int4
), gone AS (
  DELETE FROM journal WHERE region = $1 AND id IN (SELECT id FROM old) RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int4 AS trimmed`;

/**
 * Many memories of one partition at once, with their postings and the partition's statistics,
 * for loads known to fit under the ceiling (benchmarks' bulk users, imports that checked first):
 * no eviction, no duplicate check, no journal. $1 region, $2 user, $3 kind, $4 ids, $5 contents,
 * $6 fingerprints, $7 vectors, $8 lengths, $9 created (and last useful) at, $10/$11/$12 postings
 * (id, term, frequency), $13 whether they expire (the kind has a TTL), $14 agent, $15 client.
 */
export const LOAD = `
WITH given AS (
  SELECT g.id, g.content, g.fingerprint, g.embedding, g.dl
    FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::int4[]) AS g(id, content, fingerprint, embedding, dl)
), postings AS (
  SELECT p.id, p.term, p.tf FROM unnest($10::uuid[], $11::text[], $12::int4[]) AS p(id, term, tf)
), written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_count, expires,
                        created_at, last_useful_at, agent, client)
  SELECT g.id, $1, $2::uuid, $3, g.content, g.fingerprint, g.embedding::vector,
         COALESCE((SELECT array_agg(p.term) FROM postings AS p WHERE p.id = g.id), ARRAY[]::text[]), g.dl, $13::bool,
         $9::timestamptz, $9::timestamptz, $14, $15
    FROM given AS g
  RETURNING id
), posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl)
  SELECT $1, $2::uuid, $3, p.term, p.id, p.tf, g.dl FROM postings AS p JOIN given AS g ON g.id = p.id
  RETURNING 1
), rarity AS (
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df)
  SELECT $1, $2::uuid, $3, p.term, CAST(count(*) AS INT4) FROM postings AS p GROUP BY p.term
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = d.df + excluded.df
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS c (region, user_id, kind, memories, term_total, writes)
  SELECT $1, $2::uuid, $3, count(*), COALESCE(sum(dl), 0), 1 FROM given
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = c.memories + excluded.memories, term_total = c.term_total + excluded.term_total, writes = c.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM written)::int4 AS written, (SELECT count(*) FROM posted)::int4 AS posted`;

/**
 * Pins or unpins one live memory of the caller, leaving its usefulness alone (a pin is not a
 * recall): $1 region, $2 user, $3 id, $4 pinned (the new state), $5 pin limit, $6 the kinds with a
 * TTL (an unpinned memory of one goes back into the expiry index, for the sweeper), then
 * (kind, cutoff) pairs. A pin is a write the pin limit depends on: it writes the user's partition
 * row (kind ''), as a merge that pins does, so that two pins of one user never both pass the limit.
 */
export function setPinnedSql(ttlKinds: number): string {
  return `
WITH target AS (
  SELECT t.id, t.pinned FROM memories AS t
   WHERE t.region = $1 AND t.user_id = $2::uuid AND t.id = $3::uuid AND ${unexpired(ttlKinds, 7, 't')}
), allowed AS (
  SELECT (NOT $4::bool OR t.pinned
          OR (SELECT count(*) FROM memories WHERE region = $1 AND user_id = $2::uuid AND pinned) < $5::int4) AS pin_ok
    FROM target AS t
), updated AS (
  UPDATE memories AS m
     SET pinned = $4::bool,
         expires = NOT $4::bool AND m.kind = ANY($6::text[])
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = $3::uuid AND m.pinned <> $4::bool
     AND m.id IN (SELECT id FROM target) AND (SELECT pin_ok FROM allowed)
  RETURNING m.id
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
  SELECT $1, $2::uuid, '', 1 WHERE $4::bool AND EXISTS (SELECT 1 FROM updated)
  ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT count(*) FROM updated)::int4 AS updated,
       (SELECT count(*) FROM counted)::int4 AS counted`;
}

/**
 * An import: many memories of one user, of several kinds, with their provenance, pins, conflict
 * links, postings and the partitions' statistics, and journal lines — all or nothing, in one
 * statement. Memories equal (same kind and fingerprint) to a live one are already there and are
 * not written again; a link naming one goes to that live memory. Nothing is written unless every
 * kind stays within its ceiling and the user within the pin limit once the new ones are in (an
 * import never evicts); the answer says by how much each would pass. A journal line equal to one
 * the user has already is not added again, so importing a file twice changes nothing.
 * $1 region, $2 user; memories: $3 ids, $4 kinds, $5 contents, $6 fingerprints, $7 vectors,
 * $8 lengths, $9 pinned, $10 expires, $11 created, $12 last useful, $13 recall counts,
 * $14 restatements, $15 origins, $16 agents, $17 clients, $18 restated-by (JSON); postings: $19 ids,
 * $20 terms, $21 frequencies; links: $22/$23 pairs of ids; journal: $24 at, $25 kinds, $26 rules,
 * $27 ages, $28 recall counts; $29/$30 each kind's name and ceiling, $31 pin limit; the kinds
 * ($32…), then (kind, cutoff) pairs. Every kind of the memories and lines is among the kinds.
 */
export function importSql(kinds: number, ttlKinds: number): string {
  return `
WITH given AS (
  SELECT g.* FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int4[], $9::bool[], $10::bool[],
                         $11::timestamptz[], $12::timestamptz[], $13::int4[], $14::int4[], $15::text[], $16::text[],
                         $17::text[], $18::text[])
    AS g(id, kind, content, fingerprint, embedding, dl, pinned, expires, created_at, last_useful_at, recall_count,
         restatements, origin, agent, client, restated_by)
), postings AS (
  SELECT p.id, p.term, p.tf FROM unnest($19::uuid[], $20::text[], $21::int4[]) AS p(id, term, tf)
), ceilings AS (
  SELECT c.kind, c.ceiling FROM unnest($29::text[], $30::int4[]) AS c(kind, ceiling)
), live AS (
  SELECT m.id, m.kind, m.fingerprint FROM memories AS m
   WHERE (m.region, m.user_id, m.kind) IN (${prefixList(kinds, 32)}) AND ${unexpired(ttlKinds, 32 + kinds, 'm')}
), present AS (
  SELECT g.id AS given_id, l.id AS live_id FROM given AS g JOIN live AS l ON l.kind = g.kind AND l.fingerprint = g.fingerprint
), fresh AS (
  SELECT g.* FROM given AS g WHERE NOT EXISTS (SELECT 1 FROM present AS p WHERE p.given_id = g.id)
), room AS (
  SELECT c.kind, c.ceiling, (SELECT count(*) FROM live AS l WHERE l.kind = c.kind) AS have,
         (SELECT count(*) FROM fresh AS f WHERE f.kind = c.kind) AS adding
    FROM ceilings AS c
), pins AS (
  SELECT (SELECT count(*) FROM memories WHERE region = $1 AND user_id = $2::uuid AND pinned) AS have,
         (SELECT count(*) FROM fresh WHERE pinned) AS adding
), allowed AS (
  SELECT NOT EXISTS (SELECT 1 FROM room AS r WHERE r.adding > 0 AND r.have + r.adding > r.ceiling)
     AND (SELECT p.adding = 0 OR p.have + p.adding <= $31::int4 FROM pins AS p) AS ok
), written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_count, pinned, expires,
                        created_at, last_useful_at, recall_count, restatements, origin, origin_seq, agent, client, restated_by)
  SELECT f.id, $1, $2::uuid, f.kind, f.content, f.fingerprint, f.embedding::vector,
         COALESCE((SELECT array_agg(p.term) FROM postings AS p WHERE p.id = f.id), ARRAY[]::text[]), f.dl, f.pinned, f.expires,
         f.created_at, f.last_useful_at, f.recall_count, f.restatements, f.origin,
         CASE WHEN f.origin IS NOT NULL THEN ${LAST_PLACE('f.origin', 'f.kind')} + f.place END,
         f.agent, f.client, f.restated_by::jsonb
    FROM (SELECT f.*, row_number() OVER (PARTITION BY f.origin, f.kind ORDER BY f.created_at, f.id) AS place
            FROM fresh AS f) AS f
   WHERE (SELECT ok FROM allowed)
  ON CONFLICT DO NOTHING
  RETURNING id, kind, term_count
), posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl)
  SELECT $1, $2::uuid, w.kind, p.term, p.id, p.tf, w.term_count FROM postings AS p JOIN written AS w ON w.id = p.id
  RETURNING 1
), rarity AS (
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df)
  SELECT $1, $2::uuid, w.kind, p.term, CAST(count(*) AS INT4) FROM postings AS p JOIN written AS w ON w.id = p.id
   GROUP BY w.kind, p.term
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = d.df + excluded.df
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS c (region, user_id, kind, memories, term_total, writes)
  SELECT $1, $2::uuid, '', 0, 0, 1
  UNION ALL
  SELECT $1, $2::uuid, c.kind, (SELECT count(*) FROM written AS w WHERE w.kind = c.kind),
         (SELECT COALESCE(sum(w.term_count), 0) FROM written AS w WHERE w.kind = c.kind), 1
    FROM ceilings AS c
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = c.memories + excluded.memories, term_total = c.term_total + excluded.term_total, writes = c.writes + 1
  RETURNING 1
), resolved AS (
  SELECT w.id AS given_id, w.id AS final_id FROM written AS w
  UNION ALL
  SELECT p.given_id, p.live_id FROM present AS p WHERE (SELECT ok FROM allowed)
), linked AS (
  INSERT INTO memory_links (memory_id, linked_id, region, user_id)
  SELECT a.final_id, b.final_id, $1, $2::uuid
    FROM unnest($22::uuid[], $23::uuid[]) AS k(a, b)
    JOIN resolved AS a ON a.given_id = k.a
    JOIN resolved AS b ON b.given_id = k.b
   WHERE a.final_id <> b.final_id
  ON CONFLICT DO NOTHING
  RETURNING 1
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), $1, $2::uuid, j.at, j.kind, j.rule, j.age_s, j.recall_count
    FROM unnest($24::timestamptz[], $25::text[], $26::text[], $27::int8[], $28::int4[]) AS j(at, kind, rule, age_s, recall_count)
   WHERE (SELECT ok FROM allowed)
     AND NOT EXISTS (SELECT 1 FROM journal AS e
                      WHERE e.region = $1 AND e.user_id = $2::uuid AND e.at = j.at AND e.kind = j.kind AND e.rule = j.rule
                        AND e.age_s = j.age_s AND e.recall_count = j.recall_count)
  RETURNING 1
)
SELECT (SELECT ok FROM allowed) AS ok,
       (SELECT count(*) FROM written)::int4 AS written,
       (SELECT count(*) FROM present)::int4 AS present,
       (SELECT count(*) FROM linked)::int4 AS linked,
       (SELECT count(*) FROM journaled)::int4 AS journaled,
       (SELECT count(*) FROM posted)::int4 AS posted,
       (SELECT count(*) FROM rarity)::int4 AS rarity,
       (SELECT count(*) FROM counted)::int4 AS counted,
       (SELECT have FROM pins)::int4 AS pins_have,
       (SELECT adding FROM pins)::int4 AS pins_adding,
       ARRAY(SELECT r.kind || ':' || CAST(r.have AS TEXT) || ':' || CAST(r.adding AS TEXT) FROM room AS r ORDER BY r.kind) AS room`;
}
