import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * PGlite's tables of more than 8 pages, with how many of their pages their last ANALYZE or VACUUM
 * counted as all-visible: a page with dead rows, or written since the last VACUUM, is not, and an
 * index-only scan reads it from the heap. The local engine vacuums a table when it opens if more
 * than a fifth of its pages are not all-visible (decision 0117).
 */
export const TABLE_VISIBILITY = statement<Record<string, never>, { table: string; pages: number; visible: number }>({
  name: 'schema/table-visibility',
  expects: { fullScanAllowed: true },
  render: () => sql`
SELECT c.relname AS table, c.relpages AS pages, c.relallvisible AS visible
  FROM pg_class AS c
 WHERE c.relkind = 'r'
   AND c.relname IN ('memories', 'journal', 'memory_links', 'api_keys', 'memory_terms', 'memory_partition_terms', 'memory_partitions', 'memory_cells')
   AND pg_relation_size(c.oid) / current_setting('block_size')::int > 8
 ORDER BY c.relname`,
});
