import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * One bounded batch of a kind's unpinned memories not yet in the expiry index, put there: run once
 * per region for a kind that gained a TTL, so that the sweeper finds memories written before.
 */
export const MARK_EXPIRING = statement<{ region: string; kind: string; batch: number }>({
  name: 'maintenance/mark-expiring',
  expects: { regionBatch: true, fullScanAllowed: true },
  render: (p) => sql`
UPDATE memories SET expires = true
 WHERE region = ${p.region} AND id IN (SELECT id FROM memories WHERE region = ${p.region} AND kind = ${p.kind} AND NOT pinned AND NOT expires LIMIT ${p.batch}::int4)
RETURNING 1`,
});
