import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { conflictsOf, kindsParams, liveIn, type MemoryRow, memoryAnswerColumns, supersessionOf } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface MemoryByIdInputs {
  readonly scope: Scope;
  readonly id: string;
  /** The kinds with a TTL and their cutoffs: an expired memory is not found. */
  readonly expiry: readonly KindCutoff[];
}

/** One live memory of the caller, with its conflict links (a conflict's other side on the page). Read only. */
export const MEMORY_BY_ID = statement<MemoryByIdInputs, MemoryRow>({
  name: 'page/memory-by-id',
  expects: { postgresIndex: 'memories_pkey' },
  render: (p, inputs) => sql`
SELECT ${memoryAnswerColumns('m')}, ${conflictsOf('m', p.scope.region)} AS conflicts, ${supersessionOf('m', p.scope.region)}
  FROM memories AS m
 WHERE m.region = ${p.scope.region} AND m.user_id = ${p.scope.userId}::uuid AND m.id = ${p.id}::uuid AND ${liveIn('m', kindsParams(inputs.expiry))}`,
});
