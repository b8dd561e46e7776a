import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of a region's terms whose flagged postings may miss some of their best (decision 0101). */
export const STALE_TERMS = statement<{ region: string; batch: number }, { user_id: string; kind: string; term: string }>({
  name: 'maintenance/stale-terms',
  expects: {
    regionBatch: true,
    postgresIndex: 'memory_partition_terms_stale',
    cockroachIndex: 'memory_partition_terms@memory_partition_terms_stale',
  },
  render: (p) => sql`
SELECT d.user_id::text AS user_id, d.kind, d.term FROM memory_partition_terms AS d
 WHERE d.region = ${p.region} AND d.stale
 LIMIT ${p.batch}::int4`,
});
