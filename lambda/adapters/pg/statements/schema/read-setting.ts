import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One setting by name. */
export const READ_SETTING = statement<{ name: string }, { value: string }>({
  name: 'schema/read-setting',
  expects: {},
  render: (p) => sql`SELECT value FROM naaba_settings WHERE name = ${p.name}`,
});
