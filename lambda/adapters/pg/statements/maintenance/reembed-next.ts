import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** A re-embedding's next batch of rows, after the last one done. */
export const REEMBED_NEXT = statement<
  { region: string; id: string; batch: number },
  { region: string; id: string; content: string }
>({
  name: 'maintenance/reembed-next',
  expects: { fullScanAllowed: true },
  render: (p) => sql`
SELECT region::text AS region, id::text AS id, content FROM memories
 WHERE (region, id) > (${p.region}, ${p.id}::uuid) ORDER BY region, id LIMIT ${p.batch}::int4`,
});
