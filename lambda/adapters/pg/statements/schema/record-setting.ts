import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One setting rewritten (the embedder or analyzer that made the stored rows, the dimension after a re-embedding). */
export const RECORD_SETTING = statement<{ name: string; value: string }, Record<string, unknown>>({
  name: 'schema/record-setting',
  expects: {},
  render: (p) => sql`UPDATE naaba_settings SET value = ${p.value} WHERE name = ${p.name}`,
});
