import type { Scope } from '../../../../memory/model.js';
import { EVICTABLE, EVICTION_ORDER, excessIn } from '../../../../memory/policy/eviction.js';
import { EXPIRED, expiresAfterIn, inExpiryIndexIn, LIVE } from '../../../../memory/policy/expiry.js';
import { pinAllowedIn, pinnedAfterIn } from '../../../../memory/policy/pins.js';
import { cellsMark, expiryLines, lastPlace, pinnedCount, restatedByPush } from '../../sql/fragments.js';
import { expression, orderBy, predicate, SQL } from '../../sql/policy.js';
import { countedTerms, flaggedPostings, memoryPostings, postingsOf } from '../../sql/postings.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

export interface InsertMemoryInputs {
  readonly scope: Scope;
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly fingerprint: string;
  /** The vector's literal (`toVectorLiteral`). */
  readonly embedding: string;
  readonly pinned: boolean;
  readonly now: Date;
  readonly origin: string | null;
  readonly agent: string;
  readonly client: string;
  /** The source as a restatement list's entry (JSON). */
  readonly source: string;
  readonly sourcesKept: number;
  readonly ceiling: number;
  readonly pinLimit: number;
  /** The memory the judge said this one contradicts (both get linked; the ceiling spares it), or null. */
  readonly conflictsWith: string | null;
  /** The lexical arm's distinct terms, checked, and how often each occurs. */
  readonly terms: readonly string[];
  readonly frequencies: readonly number[];
  /** The passages each term occurs in, as masks (LexicalAnalyzer.passages). */
  readonly passages: readonly number[];
  /** The number of terms (the sum of the frequencies). */
  readonly length: number;
  /** The kind's cutoff; null without a TTL. */
  readonly expiredBefore: Date | null;
  /** The size from which the partition is marked for the sweeper's cells (decision 0118). */
  readonly cellsFrom: number;
}

export interface InsertMemoryRow {
  readonly id: string | null;
  readonly pin_ok: boolean;
  readonly room_ok: boolean;
  readonly evicted: number;
}

/**
 * One memory in, with its postings; the partition's expired memories out; the ceiling's excess
 * evicted (superseded memories first); each removal journaled; the memory the new one contradicts
 * linked both ways and marked superseded by it (policy/supersession.ts); the partition's counts, document
 * frequencies and flagged postings (decision 0101) kept: one statement, so a remember is atomic
 * and costs one round trip.
 *
 * Expired rows count for nothing: the ceiling counts the live rows, and the expired ones go in the
 * same statement, journaled as expiry (never as ceiling). The victims come from the statement's
 * snapshot, which cannot see the new row: the excess is live + 1 − ceiling (policy/eviction.ts),
 * taken in eviction order from the evictable live rows. If a concurrent call stored the same
 * fingerprint first, the insert becomes a merge into that row; if that row is expired, nothing is
 * written (`id` null with both checks passed) and the caller expires it before trying again: a
 * restatement never brings an expired memory back. The write takes its partition's row (and the
 * user's, when it pins), so two writers of one partition cannot both commit on stale reads
 * (decision 0056). Every read names the partition's whole key: on CockroachDB its rows are one span
 * of the primary index, and a victim is a point read there (decision 0098).
 */
export const INSERT_MEMORY = statement<InsertMemoryInputs, InsertMemoryRow>({
  name: 'curation/insert-memory',
  expects: (inputs) => ({
    vectorMutation: true,
    noIndexJoin: true,
    postgresIndex: inputs.pinned ? ['memories_user_kind', 'memories_pinned'] : 'memories_user_kind',
  }),
  render: (p, _inputs, engine) => {
    const { region, userId } = p.scope;
    const cutoff = { one: p.expiredBefore };
    const pin = sql`${p.pinned}::bool`;
    const kindExpires = sql`(${p.expiredBefore}::timestamptz IS NOT NULL)`;
    const pinOk = pinAllowedIn(SQL, { pin, alreadyPinned: false }, pinnedCount(p.scope), sql`${p.pinLimit}::int4`);
    // A restatement pins what `remember` pins and never unpins (an insert has no `pinned: false` to give).
    const restated = { pin: verbatim('excluded.pinned'), unpin: false };
    const restatedExpires = expiresAfterIn(SQL, verbatim('m.expires'), restated, kindExpires);
    return sql`
WITH kind_rows AS (
  SELECT id, pinned, last_useful_at, fingerprint, superseded_by FROM memories
   WHERE region = ${region} AND user_id = ${userId}::uuid AND kind = ${p.kind}
), live_rows AS (
  SELECT id, pinned, last_useful_at, superseded_by FROM kind_rows AS k WHERE ${predicate(LIVE, 'k', { cutoff })}
), stale AS (
  SELECT id FROM kind_rows AS k WHERE ${predicate(EXPIRED, 'k', { cutoff })} AND k.fingerprint <> ${p.fingerprint}
), excess AS (
  SELECT ${excessIn(SQL, sql`(SELECT count(*) FROM live_rows)`, sql`${p.ceiling}::int4`)} AS n
), victims AS (
  SELECT id FROM (
    SELECT l.id, row_number() OVER (ORDER BY ${orderBy(EVICTION_ORDER, 'l', { region })}) AS rank
      FROM live_rows AS l WHERE ${predicate(EVICTABLE, 'l', { spared: p.conflictsWith })}
  ) AS ranked WHERE rank <= (SELECT n FROM excess)
), allowed AS (
  SELECT ${expression(pinOk)} AS pin_ok,
         (SELECT count(*) FROM victims) >= (SELECT n FROM excess) AS room_ok
), written AS (
  INSERT INTO memories AS m (id, region, user_id, kind, content, fingerprint, embedding, terms, term_tfs, term_count, pinned,
                             expires, created_at, last_useful_at, origin, origin_seq, agent, client)
  SELECT ${p.id}::uuid, ${region}, ${userId}::uuid, ${p.kind}, ${p.content}, ${p.fingerprint}, ${p.embedding}::vector, ${p.terms}::text[], ${p.frequencies}::int4[], ${p.length}::int4, ${p.pinned}::bool,
         ${expression(inExpiryIndexIn(SQL, { pinned: pin, kindExpires }))}, ${p.now}::timestamptz, ${p.now}::timestamptz, ${p.origin},
         CASE WHEN ${p.origin}::text IS NOT NULL THEN ${lastPlace(p.scope, sql`${p.origin}::text`, sql`${p.kind}`)} + 1 END, ${p.agent}, ${p.client}
    FROM allowed WHERE pin_ok AND room_ok
  ON CONFLICT (region, user_id, kind, fingerprint) DO UPDATE
     SET restatements = m.restatements + 1,
         last_useful_at = excluded.last_useful_at,
         pinned = ${expression(pinnedAfterIn(SQL, verbatim('m.pinned'), restated))},
         expires = ${expression(restatedExpires)},
         restated_by = ${restatedByPush('m', p.source, p.sourcesKept)}
   WHERE ${predicate(LIVE, 'm', { cutoff })}
  RETURNING m.id, m.created_at, m.recall_count
), fresh AS (
  SELECT 1 AS stored FROM written WHERE written.id = ${p.id}::uuid
), evicted AS (
  DELETE FROM memories
   WHERE region = ${region} AND user_id = ${userId}::uuid AND kind = ${p.kind} AND id IN (SELECT id FROM victims) AND EXISTS (SELECT 1 FROM fresh)
  RETURNING id, created_at, recall_count, terms, term_tfs, term_count
), expired AS (
  DELETE FROM memories
   WHERE region = ${region} AND user_id = ${userId}::uuid AND kind = ${p.kind} AND id IN (SELECT id FROM stale) AND EXISTS (SELECT 1 FROM fresh)
  RETURNING id, created_at, last_useful_at, recall_count, terms, term_tfs, term_count
), removed AS (
  SELECT ${userId}::uuid AS user_id, ${p.kind}::text AS kind, id, terms, term_tfs, term_count FROM evicted
  UNION ALL
  SELECT ${userId}::uuid, ${p.kind}::text, id, terms, term_tfs, term_count FROM expired
), removed_postings AS (
  ${memoryPostings('removed', engine)}
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), ${region}, ${userId}::uuid, ${p.now}::timestamptz, ${p.kind}, 'ceiling',
         CAST(extract(epoch FROM ${p.now}::timestamptz - created_at) AS INT8), recall_count FROM evicted
  UNION ALL
  ${expiryLines('expired', region, sql`${userId}::uuid`, sql`${p.kind}`, sql`(${p.now}::timestamptz - ${p.expiredBefore}::timestamptz)`)}
  UNION ALL
  SELECT gen_random_uuid(), ${region}, ${userId}::uuid, ${p.now}::timestamptz, ${p.kind}, 'duplicate',
         CAST(extract(epoch FROM ${p.now}::timestamptz - created_at) AS INT8), recall_count
    FROM written WHERE written.id <> ${p.id}::uuid
  RETURNING 1
), linked AS (
  INSERT INTO memory_links (memory_id, linked_id, region, user_id)
  SELECT pair.a, pair.b, ${region}, ${userId}::uuid
    FROM fresh, (SELECT ${p.id}::uuid AS a, ${p.conflictsWith}::uuid AS b UNION ALL SELECT ${p.conflictsWith}::uuid, ${p.id}::uuid) AS pair
   WHERE ${p.conflictsWith}::uuid IS NOT NULL
  RETURNING 1
), replaced AS (
  UPDATE memories SET superseded_by = ${p.id}::uuid, superseded_at = ${p.now}::timestamptz
   WHERE region = ${region} AND user_id = ${userId}::uuid AND kind = ${p.kind} AND id = ${p.conflictsWith}::uuid AND EXISTS (SELECT 1 FROM fresh)
  RETURNING 1
), new_postings AS (
  SELECT ${p.kind}::text AS kind, t.term, ${p.id}::uuid AS memory_id, t.tf, ${p.length}::int4 AS dl, t.passages
    FROM fresh, unnest(${p.terms}::text[], ${p.frequencies}::int4[], ${p.passages}::int4[]) AS t(term, tf, passages)
), ${flaggedPostings('new_postings', region, userId)}, posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl, passages, best)
  SELECT ${region}, ${userId}::uuid, f.kind, f.term, f.memory_id, f.tf, f.dl, f.passages, f.best FROM posting_flags AS f
  RETURNING 1
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = ${region} AND p.user_id = ${userId}::uuid AND p.kind = ${p.kind}
     AND ${postingsOf('p', 'removed_postings', engine)}
  RETURNING p.term, p.best
), term_changes AS (
  SELECT ${p.kind}::text AS kind, c.term, CAST(sum(c.df) AS INT4) AS df, CAST(sum(c.best) AS INT4) AS best, bool_or(c.overflow) AS overflow
    FROM (SELECT f.term, 1 AS df, CASE WHEN f.best THEN 1 ELSE 0 END AS best, f.passes AND NOT f.best AS overflow FROM posting_flags AS f
          UNION ALL
          SELECT u.term, -1, CASE WHEN u.best THEN -1 ELSE 0 END, false FROM unposted AS u) AS c
   GROUP BY c.term HAVING sum(c.df) <> 0 OR sum(c.best) <> 0 OR bool_or(c.overflow)
), rarity AS (
  ${countedTerms('term_changes', region, userId)}
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, memories, term_total, writes${cellsMark.column(engine)})
  SELECT ${region}, ${userId}::uuid, '', 0, 0, 1${cellsMark.value(engine, sql`0`, p.cellsFrom)} WHERE ${p.pinned}::bool AND EXISTS (SELECT 1 FROM written)
  UNION ALL
  SELECT ${region}, ${userId}::uuid, ${p.kind}, 1 - (SELECT count(*) FROM removed), ${p.length}::int4 - (SELECT COALESCE(sum(term_count), 0) FROM removed), 1${cellsMark.value(engine, sql`1 - (SELECT count(*) FROM removed)`, p.cellsFrom)}
    FROM fresh
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = p.memories + excluded.memories, term_total = p.term_total + excluded.term_total, writes = p.writes + 1${cellsMark.kept(engine, 'p', p.cellsFrom)}
  RETURNING 1
)
SELECT (SELECT id::text FROM written) AS id,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT room_ok FROM allowed) AS room_ok,
       (SELECT count(*) FROM evicted)::int4 AS evicted,
       (SELECT count(*) FROM expired)::int4 AS expired,
       (SELECT count(*) FROM journaled)::int4 AS journaled,
       (SELECT count(*) FROM linked)::int4 AS linked,
       (SELECT count(*) FROM replaced)::int4 AS replaced,
       (SELECT count(*) FROM posted)::int4 AS posted,
       (SELECT count(*) FROM unposted)::int4 AS unposted,
       (SELECT count(*) FROM rarity)::int4 AS rarity,
       (SELECT count(*) FROM counted)::int4 AS counted`;
  },
});
