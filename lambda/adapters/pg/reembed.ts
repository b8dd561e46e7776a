import type { LexicalAnalyzer } from '../../memory/lexical.js';
import type { Embedder } from '../../ports/embedder.js';
import { checkedEmbedding } from '../embedding-check.js';
import { toTsvectorLiteral } from './lexemes.js';
import { type IndexedWith, recordIndexedWith, SchemaError, schemaFacts } from './schema.js';
import type { SqlClient } from './sql-client.js';
import { toVectorLiteral } from './vector.js';

/** How far a re-embedding has come: rows rewritten (in this run and earlier interrupted ones) of all rows. */
export interface ReembedProgress {
  readonly done: number;
  readonly total: number;
}

export interface ReembedOptions {
  /** Rows read, embedded and written per statement. */
  readonly batch: number;
  readonly onBatch?: (progress: ReembedProgress) => void;
}

/** Where an interrupted run stopped, kept in naaba_settings: the target it was rewriting for and the last row done. */
interface Cursor {
  readonly target: string;
  readonly region: string;
  readonly id: string;
}

const CURSOR = 'reembed_cursor';

/** The statements of a re-embedding, exported for the plan verifier (bin/plan/catalogue.ts). */
export const FIRST = 'SELECT region::text AS region, id::text AS id, content FROM memories ORDER BY region, id LIMIT $1::int4';
export const NEXT = `
SELECT region::text AS region, id::text AS id, content FROM memories
 WHERE (region, id) > ($1, $2::uuid) ORDER BY region, id LIMIT $3::int4`;
export const DONE_SO_FAR = 'SELECT count(*)::int4 AS n FROM memories WHERE (region, id) <= ($1, $2::uuid)';

/** Rewrites one region's rows of a batch and moves the cursor past them: one statement, so a stop never loses a batch. */
export const REWRITE = `
WITH rewritten AS (
  UPDATE memories AS m
     SET embedding = u.embedding::vector, lexemes = u.lexemes::tsvector
    FROM unnest($2::uuid[], $3::text[], $4::text[]) AS u (id, embedding, lexemes)
   WHERE m.region = $1 AND m.id = u.id
  RETURNING 1
), moved AS (
  INSERT INTO naaba_settings (name, value) VALUES ('${CURSOR}', $5)
  ON CONFLICT (name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT count(*) FROM rewritten)::int4 AS rewritten, (SELECT count(*) FROM moved)::int4 AS moved`;

async function readCursor(db: SqlClient, target: string): Promise<Cursor | undefined> {
  const [row] = await db.query<{ value: string }>('SELECT value FROM naaba_settings WHERE name = $1', [CURSOR]);
  if (!row) return undefined;
  const cursor = JSON.parse(row.value) as Cursor;
  return cursor.target === target ? cursor : undefined;
}

/**
 * Rewrites every stored embedding and lexical terms with the given embedder and analyzer, in
 * bounded batches ordered by (region, id). Each batch is one statement that also records how far
 * it got, so an interrupted run continues where it stopped when run again with the same
 * embedder and analyzer. At the end the schema records them, and start-up accepts the database.
 * Writers must be stopped meanwhile (a local data folder is locked; a cluster's endpoints must be
 * drained): a memory written by the old embedder behind the cursor would be missed.
 */
export async function reembed(
  db: SqlClient,
  embedder: Embedder,
  analyzer: LexicalAnalyzer,
  options: ReembedOptions,
): Promise<ReembedProgress> {
  const facts = await schemaFacts(db);
  if (facts.dimensions !== embedder.dimensions) {
    throw new SchemaError(
      `the schema stores ${facts.dimensions}-dimensional vectors and ${embedder.name} makes ${embedder.dimensions}; re-embedding keeps the dimension (a new dimension needs a new database)`,
    );
  }
  const current: IndexedWith = { embedder: embedder.name, lexical: analyzer.name };
  const target = `${current.embedder} + ${current.lexical}`;
  const [all] = await db.query<{ n: number }>('SELECT count(*)::int4 AS n FROM memories');
  const total = all?.n ?? 0;
  let cursor = await readCursor(db, target);
  let done = cursor ? ((await db.query<{ n: number }>(DONE_SO_FAR, [cursor.region, cursor.id]))[0]?.n ?? 0) : 0;
  for (;;) {
    const rows = cursor
      ? await db.query<{ region: string; id: string; content: string }>(NEXT, [cursor.region, cursor.id, options.batch])
      : await db.query<{ region: string; id: string; content: string }>(FIRST, [options.batch]);
    if (rows.length === 0) break;
    const vectors: string[] = [];
    for (const row of rows) {
      vectors.push(toVectorLiteral(checkedEmbedding(await embedder.embed(row.content), facts.dimensions, embedder.name)));
    }
    for (const region of new Set(rows.map((r) => r.region))) {
      const mine = rows.flatMap((r, i) => (r.region === region ? [{ ...r, vector: vectors[i] ?? '' }] : []));
      const last = mine.at(-1);
      if (!last) continue;
      cursor = { target, region, id: last.id };
      await db.query(REWRITE, [
        region,
        mine.map((r) => r.id),
        mine.map((r) => r.vector),
        mine.map((r) => toTsvectorLiteral(analyzer.terms(r.content))),
        JSON.stringify(cursor),
      ]);
    }
    done += rows.length;
    options.onBatch?.({ done, total });
  }
  await recordIndexedWith(db, current);
  await db.query('DELETE FROM naaba_settings WHERE name = $1', [CURSOR]);
  return { done, total };
}
