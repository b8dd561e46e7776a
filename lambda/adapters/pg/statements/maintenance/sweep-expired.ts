import { not, usefulSinceCutoff } from '../../../../memory/policy/condition.js';
import { EXPIRED } from '../../../../memory/policy/expiry.js';
import { expiryLines, forgottenTerms } from '../../sql/fragments.js';
import { predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SweepExpiredInputs {
  readonly region: string;
  readonly kind: string;
  readonly expiredBefore: Date;
  readonly batch: number;
  readonly now: Date;
}

/**
 * One bounded batch of expired memories of one kind in one region, journaled as expiry. It walks
 * the expiry index, which holds only unpinned rows of kinds with a TTL (`expires`), by its key
 * alone: the candidates are its oldest entries before the cutoff, with no filter that would read
 * past the batch. The DELETE checks the whole expiry rule, so a memory recalled meanwhile survives,
 * and a row two sweepers both picked is deleted (and journaled) once. Each victim is deleted by its
 * whole key (region, user, kind, id), a point read of CockroachDB's primary index (decision 0098).
 */
export const SWEEP_EXPIRED = statement<SweepExpiredInputs, { expired: number }>({
  name: 'maintenance/sweep-expired',
  expects: {
    vectorMutation: true,
    regionBatch: true,
    postgresIndex: 'memories_expiring',
    cockroachIndex: 'memories@memories_expiring',
  },
  render: (p, _inputs, engine) => {
    const cutoff = { cutoff: { set: p.expiredBefore } };
    const expired = predicate(EXPIRED, undefined, cutoff);
    // The index holds no pinned memory: the rest of the rule, by the index's key alone.
    const pastCutoff = predicate(not(usefulSinceCutoff), undefined, cutoff);
    return sql`
WITH victims AS (
  SELECT user_id, id FROM memories
   WHERE region = ${p.region} AND kind = ${p.kind} AND expires AND ${pastCutoff}
   ORDER BY last_useful_at
   LIMIT ${p.batch}::int4
), gone AS (
  DELETE FROM memories
   WHERE region = ${p.region} AND kind = ${p.kind} AND (user_id, id) IN (SELECT user_id, id FROM victims) AND ${expired}
  RETURNING id, user_id, kind, created_at, last_useful_at, recall_count, terms, term_tfs, term_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', p.region, sql`e.user_id`, sql`e.kind`, sql`(${p.now}::timestamptz - ${p.expiredBefore}::timestamptz)`)}
  RETURNING 1
), ${forgottenTerms('gone', engine, p.region)}
SELECT (SELECT count(*) FROM gone)::int4 AS expired`;
  },
});
