import type { SqlClient } from '../sql-client.js';
import { send } from '../sql/statement.js';
import { ANY_MEMORY } from '../statements/schema/any-memory.js';
import { RECORD_SETTING } from '../statements/schema/record-setting.js';
import { SCHEMA_SETTINGS } from '../statements/schema/schema-settings.js';

export class SchemaError extends Error {
  override name = 'SchemaError';
}

/** What made the stored vectors and lexical terms: an embedder name and an analyzer name, versions included. */
export interface IndexedWith {
  readonly embedder: string;
  readonly lexical: string;
}

/** The schema's facts the runtime checks at start-up. */
export interface SchemaFacts extends IndexedWith {
  readonly dimensions: number;
}

/** Written by migration 0002 until the first start on an empty table, or `naaba reembed`, records the real names. */
export const UNRECORDED = 'unrecorded';

/**
 * The embedding dimension the schema was created with, and what made the stored vectors and
 * terms: one read. Fails with a clear message when the database has not been migrated.
 */
export async function schemaFacts(db: SqlClient): Promise<SchemaFacts> {
  let rows: { name: string; value: string }[];
  try {
    rows = await send(db, SCHEMA_SETTINGS, {});
  } catch (error) {
    throw new SchemaError('the database has no naaba schema yet; run `naaba migrate` first', { cause: error });
  }
  const value = (name: string) => rows.find((r) => r.name === name)?.value;
  const dimensions = Number(value('embedding_dimensions'));
  if (!Number.isInteger(dimensions) || dimensions <= 0) throw new SchemaError('naaba_settings has no embedding_dimensions');
  return { dimensions, embedder: value('embedder') ?? UNRECORDED, lexical: value('lexical') ?? UNRECORDED };
}

/** The embedding dimension the schema was created with. */
export async function schemaDimensions(db: SqlClient): Promise<number> {
  return (await schemaFacts(db)).dimensions;
}

/** Records what made the stored vectors and terms (after a re-embedding, or on an empty table). */
export async function recordIndexedWith(db: SqlClient, current: IndexedWith): Promise<void> {
  await send(db, RECORD_SETTING, { name: 'embedder', value: current.embedder });
  await send(db, RECORD_SETTING, { name: 'lexical', value: current.lexical });
}

const describe = (name: string) => (name === UNRECORDED ? 'an earlier naaba that did not record it' : name);

/**
 * Start-up check: the stored vectors and terms must come from the embedder and analyzer in
 * force, or recall would compare unlike things. An empty table simply adopts the current ones.
 */
export async function requireIndexedWith(db: SqlClient, stored: IndexedWith, current: IndexedWith): Promise<void> {
  if (stored.embedder === current.embedder && stored.lexical === current.lexical) return;
  const [row] = await send(db, ANY_MEMORY, {});
  if (!row?.found) {
    await recordIndexedWith(db, current);
    return;
  }
  const differs = [
    stored.embedder === current.embedder ? '' : `embedded by ${describe(stored.embedder)}, not by ${current.embedder}`,
    stored.lexical === current.lexical ? '' : `their terms made by ${describe(stored.lexical)}, not by ${current.lexical}`,
  ].filter(Boolean);
  throw new SchemaError(
    `the stored memories were ${differs.join(', and ')}. Run \`naaba reembed\` with the same settings to rewrite them (safe to interrupt and run again), or start with the embedder and text language that made them.`,
  );
}
