import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { forgottenTerms, kindsParams, liveIn } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

export interface ForgetAllInputs {
  readonly scope: Scope;
  /** One kind, or null for every kind. */
  readonly kind: string | null;
  /** The kinds with a TTL and their cutoffs: only live memories are counted as forgotten. */
  readonly expiry: readonly KindCutoff[];
}

/**
 * Every memory of the caller (of one kind, or all) and the matching journal lines. Expired rows go
 * too, but only live ones are counted as forgotten. On PostgreSQL and PGlite the partitions' vector
 * cells go as well: their centroids are means of the memories' vectors (decision 0083).
 */
export const FORGET_ALL = statement<ForgetAllInputs, { memories: number; journal_lines: number }>({
  name: 'curation/forget-all',
  expects: { vectorMutation: true, postgresIndex: 'memories_user_kind' },
  render: (p, inputs, engine) => {
    const ofKind = sql`(${p.kind}::text IS NULL OR kind = ${p.kind}::text)`;
    const centroids =
      engine === 'cockroach'
        ? verbatim('')
        : sql`), centroids AS (
  DELETE FROM memory_cells WHERE region = ${p.scope.region} AND user_id = ${p.scope.userId}::uuid AND ${ofKind}
  RETURNING 1`;
    return sql`
WITH gone AS (
  DELETE FROM memories WHERE region = ${p.scope.region} AND user_id = ${p.scope.userId}::uuid AND ${ofKind}
  RETURNING id, user_id, kind, pinned, last_useful_at, terms, term_tfs, term_count
${centroids}), lines AS (
  DELETE FROM journal WHERE region = ${p.scope.region} AND user_id = ${p.scope.userId}::uuid AND ${ofKind}
  RETURNING 1
), ${forgottenTerms('gone', engine, p.scope.region, p.scope.userId)}
SELECT (SELECT count(*) FROM gone AS g WHERE ${liveIn('g', kindsParams(inputs.expiry))})::int4 AS memories,
       (SELECT count(*) FROM lines)::int4 AS journal_lines`;
  },
});
