import type { SqlClient } from './sql-client.js';

export class SchemaError extends Error {
  override name = 'SchemaError';
}

/**
 * The embedding dimension the schema was created with. Fails with a clear message when the
 * database has not been migrated.
 */
export async function schemaDimensions(db: SqlClient): Promise<number> {
  let rows: { value: string }[];
  try {
    rows = await db.query<{ value: string }>("SELECT value FROM naaba_settings WHERE name = 'embedding_dimensions'");
  } catch (error) {
    throw new SchemaError('the database has no naaba schema yet; run `naaba migrate` first', { cause: error });
  }
  const value = Number(rows[0]?.value);
  if (!Number.isInteger(value) || value <= 0) throw new SchemaError('naaba_settings has no embedding_dimensions');
  return value;
}
