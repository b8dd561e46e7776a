import type { Scope } from '../../../../memory/model.js';
import { not, pinned } from '../../../../memory/policy/condition.js';
import { inExpiryIndexIn, type KindCutoff } from '../../../../memory/policy/expiry.js';
import { setPinnedAllowedIn } from '../../../../memory/policy/pins.js';
import { kindsParams, liveIn, pinnedCount } from '../../sql/fragments.js';
import { expression, predicate, SQL } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SetPinnedManyInputs {
  readonly scope: Scope;
  /** Distinct canonical ids, at least one. */
  readonly ids: readonly string[];
  /** The new state of every one of them. */
  readonly pinned: boolean;
  readonly pinLimit: number;
  /** The kinds with a TTL: an unpinned memory of one goes back into the expiry index, for the sweeper. */
  readonly expiringKinds: readonly string[];
  /** Their cutoffs: an expired memory is gone and cannot be pinned. */
  readonly expiry: readonly KindCutoff[];
}

export interface SetPinnedManyRow {
  /** How many of the ids are live memories of the caller. */
  readonly found: number;
  /** Whether the pins fit the limit (policy/pins.ts, `pinsFit`); true for an unpin. */
  readonly pin_ok: boolean;
  /** The ids whose state changed: none unless every id was found and the pins fit. */
  readonly changed: string[];
}

/**
 * Pins or unpins a set of the caller's memories (the page's one memory is a set of one) as one statement: every one of them, or none when
 * one is not a live memory of the caller or the pins would pass the limit (decision 0112). The
 * limit is counted in the same statement, and a pin writes the user's partition row (kind ''), as
 * a merge that pins does, so that two pinning writers of one user never both
 * pass the limit: the later one fails at its first attempt and queues behind the lock. The
 * update reaches its rows by the found ones' full key, not by the id list again, which PostgreSQL
 * would sort once per row (decision 0158).
 */
export const SET_PINNED_MANY = statement<SetPinnedManyInputs, SetPinnedManyRow>({
  name: 'page/set-pinned-many',
  expects: (inputs) => ({ postgresIndex: inputs.pinned ? ['memories_pkey', 'memories_pinned'] : 'memories_pkey' }),
  render: (p, inputs) => {
    const { region, userId } = p.scope;
    const pin = sql`${p.pinned}::bool`;
    const adding = sql`(SELECT count(*) FROM target AS t WHERE ${predicate(not(pinned), 't', {})})`;
    const pinOk = setPinnedAllowedIn(SQL, pin, pinnedCount(p.scope), adding, sql`${p.pinLimit}::int4`);
    const kindExpires = sql`(m.kind = ANY(${p.expiringKinds}::text[]))`;
    return sql`
WITH target AS (
  SELECT t.kind, t.id, t.pinned FROM memories AS t
   WHERE t.region = ${region} AND t.user_id = ${userId}::uuid AND t.id = ANY(${p.ids}::uuid[]) AND ${liveIn('t', kindsParams(inputs.expiry))}
), verdict AS (
  SELECT (SELECT count(*) FROM target) = array_length(${p.ids}::uuid[], 1) AS all_found,
         ${expression(pinOk)} AS pin_ok
), updated AS (
  UPDATE memories AS m
     SET pinned = ${p.pinned}::bool,
         expires = ${expression(inExpiryIndexIn(SQL, { pinned: pin, kindExpires }))}
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.pinned <> ${p.pinned}::bool
     AND (m.kind, m.id) IN (SELECT t.kind, t.id FROM target AS t) AND (SELECT all_found AND pin_ok FROM verdict)
  RETURNING m.id
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
  SELECT ${region}, ${userId}::uuid, '', 1 WHERE ${p.pinned}::bool AND EXISTS (SELECT 1 FROM updated)
  ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM verdict) AS pin_ok,
       ARRAY(SELECT id::text FROM updated ORDER BY id) AS changed,
       (SELECT count(*) FROM counted)::int4 AS counted`;
  },
});
