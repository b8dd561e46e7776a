import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * PGlite's tables whose size in pages is more than a fifth (and 8 pages) beyond what their last
 * ANALYZE recorded: PGlite runs no autovacuum, so the local engine refreshes these itself.
 */
export const STALE_STATISTICS = statement<Record<string, never>, { table: string }>({
  name: 'schema/stale-statistics',
  expects: { fullScanAllowed: true },
  render: () => sql`
SELECT c.relname AS table
  FROM pg_class AS c
 WHERE c.relkind = 'r'
   AND c.relname IN ('memories', 'journal', 'memory_links', 'api_keys', 'memory_terms', 'memory_partition_terms', 'memory_partitions', 'memory_cells')
   AND pg_relation_size(c.oid) / current_setting('block_size')::int > 1.2 * GREATEST(c.relpages, 0) + 8
 ORDER BY c.relname`,
});
