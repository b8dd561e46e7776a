import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The settings the start-up check reads: the schema's embedding dimension and what made the stored vectors and terms. */
export const SCHEMA_SETTINGS = statement<Record<string, never>, { name: string; value: string }>({
  name: 'schema/schema-settings',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT name, value FROM naaba_settings WHERE name IN ('embedding_dimensions', 'embedder', 'lexical')`,
});
