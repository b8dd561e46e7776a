import type { Scope } from '../../../../memory/model.js';
import { EXPIRED } from '../../../../memory/policy/expiry.js';
import { expiryLines, forgottenTerms } from '../../sql/fragments.js';
import { predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface ExpirePartitionInputs {
  readonly scope: Scope;
  readonly kind: string;
  readonly expiredBefore: Date;
  readonly now: Date;
}

/**
 * Removes the expired memories of one (region, user, kind), journaled as expiry: what a remember
 * that meets an expired exact restatement does first, so that the restatement is stored as new.
 */
export const EXPIRE_PARTITION = statement<ExpirePartitionInputs, { expired: number }>({
  name: 'curation/expire-partition',
  expects: { vectorMutation: true, postgresIndex: 'memories_user_kind' },
  render: (p, _inputs, engine) => sql`
WITH gone AS (
  DELETE FROM memories
   WHERE region = ${p.scope.region} AND user_id = ${p.scope.userId}::uuid AND kind = ${p.kind}
     AND ${predicate(EXPIRED, undefined, { cutoff: { set: p.expiredBefore } })}
  RETURNING id, user_id, kind, created_at, last_useful_at, recall_count, terms, term_tfs, term_count
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  ${expiryLines('gone', p.scope.region, sql`${p.scope.userId}::uuid`, sql`${p.kind}`, sql`(${p.now}::timestamptz - ${p.expiredBefore}::timestamptz)`)}
  RETURNING 1
), ${forgottenTerms('gone', engine, p.scope.region, p.scope.userId)}
SELECT (SELECT count(*) FROM gone)::int4 AS expired`,
});
