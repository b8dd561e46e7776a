import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One setting removed (a finished re-embedding's cursor). */
export const DELETE_SETTING = statement<{ name: string }, Record<string, unknown>>({
  name: 'schema/delete-setting',
  expects: {},
  render: (p) => sql`DELETE FROM naaba_settings WHERE name = ${p.name}`,
});
