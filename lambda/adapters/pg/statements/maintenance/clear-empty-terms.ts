import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of a region's document frequencies that came down to zero, cleared. */
export const CLEAR_EMPTY_TERMS = statement<{ region: string; batch: number }>({
  name: 'maintenance/clear-empty-terms',
  expects: { regionBatch: true, postgresIndex: 'memory_partition_terms_empty' },
  render: (p) => sql`
DELETE FROM memory_partition_terms
 WHERE region = ${p.region} AND (user_id, kind, term) IN (
   SELECT user_id, kind, term FROM memory_partition_terms WHERE region = ${p.region} AND df <= 0 LIMIT ${p.batch}::int4)
RETURNING 1`,
});
