import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { kindsParams, liveIn } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SetPinnedInputs {
  readonly scope: Scope;
  readonly id: string;
  /** The new state. */
  readonly pinned: boolean;
  readonly pinLimit: number;
  /** The kinds with a TTL: an unpinned memory of one goes back into the expiry index, for the sweeper. */
  readonly expiringKinds: readonly string[];
  /** Their cutoffs: an expired memory cannot be pinned. */
  readonly expiry: readonly KindCutoff[];
}

/**
 * Pins or unpins one live memory of the caller, leaving its usefulness alone (a pin is not a
 * recall). A pin is a write the pin limit depends on: it writes the user's partition row (kind ''),
 * as a merge that pins does, so that two pins of one user never both pass the limit.
 */
export const SET_PINNED = statement<SetPinnedInputs, { found: number; pin_ok: boolean | null; updated: number }>({
  name: 'page/set-pinned',
  expects: (inputs) => ({ postgresIndex: inputs.pinned ? ['memories_pkey', 'memories_pinned'] : 'memories_pkey' }),
  render: (p, inputs) => {
    const { region, userId } = p.scope;
    return sql`
WITH target AS (
  SELECT t.id, t.pinned FROM memories AS t
   WHERE t.region = ${region} AND t.user_id = ${userId}::uuid AND t.id = ${p.id}::uuid AND ${liveIn('t', kindsParams(inputs.expiry))}
), allowed AS (
  SELECT (NOT ${p.pinned}::bool OR t.pinned
          OR (SELECT count(*) FROM memories WHERE region = ${region} AND user_id = ${userId}::uuid AND pinned) < ${p.pinLimit}::int4) AS pin_ok
    FROM target AS t
), updated AS (
  UPDATE memories AS m
     SET pinned = ${p.pinned}::bool,
         expires = NOT ${p.pinned}::bool AND m.kind = ANY(${p.expiringKinds}::text[])
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.id = ${p.id}::uuid AND m.pinned <> ${p.pinned}::bool
     AND m.id IN (SELECT id FROM target) AND (SELECT pin_ok FROM allowed)
  RETURNING m.id
), counted AS (
  INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
  SELECT ${region}, ${userId}::uuid, '', 1 WHERE ${p.pinned}::bool AND EXISTS (SELECT 1 FROM updated)
  ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM target)::int4 AS found,
       (SELECT pin_ok FROM allowed) AS pin_ok,
       (SELECT count(*) FROM updated)::int4 AS updated,
       (SELECT count(*) FROM counted)::int4 AS counted`;
  },
});
