import type { Scope } from '../../../../memory/model.js';
import { expiresAfterIn, LIVE } from '../../../../memory/policy/expiry.js';
import { pinAllowedIn, pinnedAfterIn } from '../../../../memory/policy/pins.js';
import { pinnedCount, restatedByPush } from '../../sql/fragments.js';
import { expression, predicate, SQL } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

export interface MergeMemoryInputs {
  readonly scope: Scope;
  readonly targetId: string;
  /** Whether the restatement pins the memory. */
  readonly pin: boolean;
  /** Whether it unpins it (`remember` with `pinned: false`); neither keeps the pin as it was. */
  readonly unpin: boolean;
  readonly now: Date;
  /** The restatement's source as a restatement list's entry (JSON). */
  readonly source: string;
  readonly sourcesKept: number;
  readonly pinLimit: number;
  /** The target kind's cutoff; null without a TTL: an expired target is gone. */
  readonly expiredBefore: Date | null;
}

export interface MergeMemoryRow {
  readonly found: number;
  readonly pin_ok: boolean | null;
  readonly updated: number;
  /** The memory that had replaced the target, which the target now supersedes; null when it was current. */
  readonly revived_over: string | null;
}

/**
 * A restatement absorbed into an existing live memory (restatement count, bounded newest-first
 * sources, usefulness now) and the merge journaled as `duplicate`: one statement. A merge that pins
 * writes the user's partition row, so that pin counts hold under concurrency; one that unpins
 * needs no count. A restatement of a superseded memory makes it current again: it supersedes the
 * memory that had replaced it (policy/supersession.ts, decision 0124), still linked to it.
 */
export const MERGE_MEMORY = statement<MergeMemoryInputs, MergeMemoryRow>({
  name: 'curation/merge-memory',
  expects: (inputs) => ({ postgresIndex: inputs.pin ? ['memories_pkey', 'memories_pinned'] : 'memories_pkey' }),
  render: (p) => {
    const { region, userId } = p.scope;
    const live = (alias: string) => predicate(LIVE, alias, { cutoff: { one: p.expiredBefore } });
    const change = { pin: sql`${p.pin}::bool`, unpin: sql`${p.unpin}::bool` };
    const pinOk = pinAllowedIn(
      SQL,
      { pin: change.pin, alreadyPinned: verbatim('t.pinned') },
      pinnedCount(p.scope),
      sql`${p.pinLimit}::int4`,
    );
    // Unpinned, a memory of a kind with a TTL (a cutoff) can expire again.
    const restatedExpires = expiresAfterIn(
      SQL,
      verbatim('m.expires'),
      change,
      sql`(${p.expiredBefore}::timestamptz IS NOT NULL)`,
    );
    return sql`
WITH target AS (
  SELECT t.id, t.pinned, t.kind,
         (SELECT b.id FROM memories AS b WHERE b.region = ${region} AND b.id = t.superseded_by) AS replacer
    FROM memories AS t
   WHERE t.region = ${region} AND t.user_id = ${userId}::uuid AND t.id = ${p.targetId}::uuid AND ${live('t')}
), allowed AS (
  SELECT ${expression(pinOk)} AS pin_ok
    FROM target AS t
), updated AS (
  UPDATE memories AS m
     SET restatements = m.restatements + 1,
         last_useful_at = GREATEST(m.last_useful_at, ${p.now}::timestamptz),
         pinned = ${expression(pinnedAfterIn(SQL, verbatim('m.pinned'), change))},
         expires = ${expression(restatedExpires)},
         restated_by = ${restatedByPush('m', p.source, p.sourcesKept)},
         superseded_by = NULL,
         superseded_at = NULL
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.id = ${p.targetId}::uuid AND (SELECT pin_ok FROM allowed)
     AND ${live('m')}
  RETURNING m.kind, m.created_at, m.recall_count
), revived AS (
  -- Said again, a superseded memory supersedes the memory that had replaced it.
  UPDATE memories AS b SET superseded_by = ${p.targetId}::uuid, superseded_at = ${p.now}::timestamptz
   WHERE b.region = ${region} AND b.id = (SELECT t.replacer FROM target AS t) AND EXISTS (SELECT 1 FROM updated)
  RETURNING b.id
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), ${region}, ${userId}::uuid, ${p.now}::timestamptz, kind, 'duplicate',
         CAST(extract(epoch FROM ${p.now}::timestamptz - created_at) AS INT8), recall_count FROM updated
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
  SELECT ${region}, ${userId}::uuid, '', 1 WHERE ${p.pin}::bool AND EXISTS (SELECT 1 FROM updated)
  ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT count(*) FROM updated)::int4 AS updated,
       (SELECT r.id::text FROM revived AS r) AS revived_over,
       (SELECT count(*) FROM counted)::int4 AS counted`;
  },
});
