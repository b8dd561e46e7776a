import { not, pinned } from '../../../../memory/policy/condition.js';
import { SUPERSEDED } from '../../../../memory/policy/supersession.js';
import { forgottenTerms } from '../../sql/fragments.js';
import { predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SweepSupersededInputs {
  readonly region: string;
  readonly kind: string;
  /** Memories superseded before this instant have served their grace period (policy/supersession.ts). */
  readonly supersededBefore: Date;
  readonly batch: number;
  readonly now: Date;
}

/**
 * One bounded batch of superseded memories of one kind in one region whose grace period is over,
 * deleted and journaled as `superseded` (decision 0107). It walks `memories_superseded`, which holds
 * only rows with a supersession time, oldest first, by its key alone. A picked row whose replacement
 * is gone (it was forgotten: the row is current again) or that is pinned (never deleted
 * automatically) leaves the walk instead: its supersession time is cleared, and with a gone
 * replacement its `superseded_by` too, so every batch makes progress.
 */
export const SWEEP_SUPERSEDED = statement<SweepSupersededInputs, { superseded: number; settled: number }>({
  name: 'maintenance/sweep-superseded',
  expects: {
    vectorMutation: true,
    regionBatch: true,
    postgresIndex: 'memories_superseded',
    cockroachIndex: 'memories@memories_superseded',
  },
  render: (p, _inputs, engine) => {
    const due = sql`${predicate(SUPERSEDED, 's', { region: p.region })} AND ${predicate(not(pinned), 's', {})}`;
    return sql`
WITH picked AS (
  SELECT user_id, id FROM memories
   WHERE region = ${p.region} AND kind = ${p.kind} AND superseded_at IS NOT NULL AND superseded_at < ${p.supersededBefore}::timestamptz
   ORDER BY superseded_at
   LIMIT ${p.batch}::int4
), gone AS (
  DELETE FROM memories AS s
   WHERE s.region = ${p.region} AND s.kind = ${p.kind} AND (s.user_id, s.id) IN (SELECT user_id, id FROM picked)
     AND s.superseded_at < ${p.supersededBefore}::timestamptz AND ${due}
  RETURNING s.id, s.user_id, s.kind, s.created_at, s.recall_count, s.terms, s.term_tfs, s.term_count
), settled AS (
  UPDATE memories AS s
     SET superseded_at = NULL,
         superseded_by = CASE WHEN ${predicate(SUPERSEDED, 's', { region: p.region })} THEN s.superseded_by END
   WHERE s.region = ${p.region} AND s.kind = ${p.kind} AND (s.user_id, s.id) IN (SELECT user_id, id FROM picked)
     AND s.superseded_at < ${p.supersededBefore}::timestamptz AND NOT (${due})
  RETURNING 1
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), ${p.region}, g.user_id, ${p.now}::timestamptz, g.kind, 'superseded',
         CAST(extract(epoch FROM ${p.now}::timestamptz - g.created_at) AS INT8), g.recall_count
    FROM gone AS g
  RETURNING 1
), ${forgottenTerms('gone', engine, p.region)}
SELECT (SELECT count(*) FROM gone)::int4 AS superseded, (SELECT count(*) FROM settled)::int4 AS settled`;
  },
});
