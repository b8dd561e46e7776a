import type { Scope } from '../../../../memory/model.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface LockPartitionInputs {
  readonly scope: Scope;
  /** The kind's row to lock; null: none. */
  readonly kind: string | null;
  /** Whether the user's own row (kind '') is wanted too: a write that pins. */
  readonly pins: boolean;
}

/**
 * Creates or locks a write's partition rows, first in a queued write's transaction (decision
 * 0056). The user's row comes first, in every statement that takes both, so two writers never wait
 * on each other in opposite orders. Each row gets a new version, so a writer that read before this
 * transaction committed fails instead of writing on what it read.
 */
export const LOCK_PARTITION = statement<LockPartitionInputs>({
  name: 'curation/lock-partition',
  expects: {},
  render: (p) => sql`
INSERT INTO memory_partitions AS p (region, user_id, kind, writes)
SELECT ${p.scope.region}, ${p.scope.userId}::uuid, '', 1 WHERE ${p.pins}::bool
UNION ALL
SELECT ${p.scope.region}, ${p.scope.userId}::uuid, ${p.kind}::text, 1 WHERE ${p.kind}::text IS NOT NULL
ON CONFLICT (region, user_id, kind) DO UPDATE SET writes = p.writes + 1
RETURNING p.kind`,
});
