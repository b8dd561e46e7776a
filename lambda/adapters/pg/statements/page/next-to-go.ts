import type { Scope } from '../../../../memory/model.js';
import { EVICTABLE, EVICTION_ORDER } from '../../../../memory/policy/eviction.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { kindsParams, liveIn, partitionList } from '../../sql/fragments.js';
import { orderBy, predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface NextToGoInputs {
  readonly scope: Scope;
  readonly kinds: readonly KindCutoff[];
  readonly perKind: number;
}

export interface NextToGoRow {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly last_useful_at: Date;
  readonly recall_count: number;
  /** The memory that replaced it, while that exists; null for a current memory. */
  readonly superseded_by: string | null;
}

/**
 * Per kind, the first live memories a ceiling would evict, in the eviction order the insert uses
 * (policy/eviction.ts: superseded ones first, each with the memory that replaced it): forgetting
 * read before it happens. For a kind with a TTL the same order is
 * the order of expiry. Read only.
 */
export const NEXT_TO_GO = statement<NextToGoInputs, NextToGoRow>({
  name: 'page/next-to-go',
  expects: { postgresIndex: 'memories_user_kind' },
  render: (p, inputs) => {
    const kinds = kindsParams(inputs.kinds);
    return sql`
SELECT r.id::text AS id, r.kind, r.content, r.last_useful_at, r.recall_count,
       (SELECT newer.id::text FROM memories AS newer WHERE newer.region = ${p.scope.region} AND newer.id = r.superseded_by) AS superseded_by
  FROM (SELECT m.id, m.kind, m.content, m.last_useful_at, m.recall_count, m.superseded_by,
               row_number() OVER (PARTITION BY m.kind ORDER BY ${orderBy(EVICTION_ORDER, 'm', { region: p.scope.region })}) AS rank
          FROM memories AS m
         WHERE (m.region, m.user_id, m.kind) IN (${partitionList(p.scope, kinds.names)})
           AND ${predicate(EVICTABLE, 'm', {})} AND ${liveIn('m', kinds)}) AS r
 WHERE r.rank <= ${p.perKind}::int4
 ORDER BY r.kind, r.rank`;
  },
});
