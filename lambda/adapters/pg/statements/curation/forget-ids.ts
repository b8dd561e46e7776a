import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { forgottenTerms, kindsParams, liveIn } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface ForgetIdsInputs {
  readonly scope: Scope;
  readonly ids: readonly string[];
  /** The kinds with a TTL and their cutoffs. */
  readonly expiry: readonly KindCutoff[];
}

/**
 * Deletes the caller's live memories among some ids. An expired memory is gone already:
 * forgetting it deletes nothing, and the sweeper journals it.
 */
export const FORGET_IDS = statement<ForgetIdsInputs, { id: string }>({
  name: 'curation/forget-ids',
  expects: { vectorMutation: true, postgresIndex: 'memories_pkey' },
  render: (p, inputs, engine) => sql`
WITH gone AS (
  DELETE FROM memories AS m
   WHERE m.region = ${p.scope.region} AND m.user_id = ${p.scope.userId}::uuid AND m.id = ANY(${p.ids}::uuid[])
     AND ${liveIn('m', kindsParams(inputs.expiry))}
  RETURNING m.id, m.user_id, m.kind, m.terms, m.term_tfs, m.term_count
), ${forgottenTerms('gone', engine, p.scope.region, p.scope.userId)}
SELECT id::text AS id FROM gone`,
});
