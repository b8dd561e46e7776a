import type { LexicalAnalyzer } from '../../memory/lexical.js';
import type { Embedder } from '../../ports/embedder.js';
import { checkedEmbedding } from '../embedding-check.js';
import { checkedTerms } from './lexemes.js';
import { type IndexedWith, RECORD_SETTING, recordIndexedWith, SchemaError, schemaFacts } from './schema.js';
import { inTransaction, type SqlClient } from './sql-client.js';
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

/**
 * Where the vectors of a new dimension are written while the old ones stay in place: the old
 * column serves until the last batch is done, then one transaction swaps the columns.
 */
const NEXT_COLUMN = 'embedding_next';

/** Rows whose vector of the new dimension is still missing (written behind the cursor, or left by a stop). */
export const MISSING_NEXT = `SELECT region::text AS region, id::text AS id, content FROM memories
 WHERE ${NEXT_COLUMN} IS NULL ORDER BY region, id LIMIT $1::int4`;

/** The statements of a re-embedding, exported for the plan verifier (bin/plan/catalogue.ts). */
/**
 * Every partition's vector cells removed (decision 0083), on PostgreSQL and PGlite: a re-embed
 * makes their centroids meaningless. Safe to run again.
 */
export const CLEAR_ALL_CELLS = `
WITH gone AS (DELETE FROM memory_cells RETURNING 1),
     unplaced AS (UPDATE memories SET cell = NULL WHERE cell IS NOT NULL RETURNING 1)
UPDATE memory_partitions SET cells_for = NULL WHERE cells_for IS NOT NULL`;
export const FIRST = 'SELECT region::text AS region, id::text AS id, content FROM memories ORDER BY region, id LIMIT $1::int4';
export const NEXT = `
SELECT region::text AS region, id::text AS id, content FROM memories
 WHERE (region, id) > ($1, $2::uuid) ORDER BY region, id LIMIT $3::int4`;
export const DONE_SO_FAR = 'SELECT count(*)::int4 AS n FROM memories WHERE (region, id) <= ($1, $2::uuid)';

/**
 * Rewrites one region's rows of a batch — vectors, terms, postings, and the partitions' document
 * frequencies and lengths by the difference — and moves the cursor past them: one statement, so
 * a stop never loses a batch, and the statistics are right after every batch. $1 region, $2 ids,
 * $3 vectors, $4/$5/$6 postings (id, term, frequency), $7 each row's length, $8 the cursor.
 * Postings of terms a row keeps are updated in place, so no row is deleted and inserted by the
 * same statement (which CockroachDB refuses to do safely). `column` is where the vectors go:
 * `embedding`, or the new column of a change of dimension (see {@link reembed}).
 */
export const rewriteSql = (column: 'embedding' | typeof NEXT_COLUMN) => `
WITH old AS (
  SELECT m.id, m.user_id, m.kind, m.terms, m.term_count FROM memories AS m
   WHERE m.region = $1 AND m.id = ANY($2::uuid[])
), fresh AS (
  SELECT f.id, f.term, f.tf, o.user_id, o.kind
    FROM unnest($4::uuid[], $5::text[], $6::int4[]) AS f(id, term, tf) JOIN old AS o ON o.id = f.id
), given AS (
  SELECT u.id, u.embedding, u.dl, t.terms
    FROM unnest($2::uuid[], $3::text[], $7::int4[]) AS u(id, embedding, dl)
    LEFT JOIN (SELECT id, array_agg(term) AS terms FROM fresh GROUP BY id) AS t ON t.id = u.id
), rewritten AS (
  UPDATE memories AS m
     SET ${column} = g.embedding::vector, terms = COALESCE(g.terms, ARRAY[]::text[]), term_count = g.dl
    FROM given AS g
   WHERE m.region = $1 AND m.id = g.id
  RETURNING 1
), dropped AS (
  SELECT o.user_id, o.kind, t.term, o.id FROM old AS o, unnest(o.terms) AS t(term)
   WHERE NOT EXISTS (SELECT 1 FROM fresh AS f WHERE f.id = o.id AND f.term = t.term)
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = $1 AND (p.user_id, p.kind, p.term, p.memory_id) IN (SELECT user_id, kind, term, id FROM dropped)
  RETURNING 1
), posted AS (
  INSERT INTO memory_terms AS p (region, user_id, kind, term, memory_id, tf, dl)
  SELECT $1, f.user_id, f.kind, f.term, f.id, f.tf, g.dl FROM fresh AS f JOIN given AS g ON g.id = f.id
  ON CONFLICT (region, user_id, kind, term, memory_id) DO UPDATE SET tf = excluded.tf, dl = excluded.dl
  RETURNING 1
), term_changes AS (
  SELECT c.user_id, c.kind, c.term, CAST(sum(c.change) AS INT4) AS change FROM (
    SELECT user_id, kind, term, -1 AS change FROM dropped
    UNION ALL
    SELECT f.user_id, f.kind, f.term, 1 AS change FROM fresh AS f
     WHERE NOT EXISTS (SELECT 1 FROM old AS o, unnest(o.terms) AS t(term) WHERE o.id = f.id AND t.term = f.term)
  ) AS c GROUP BY c.user_id, c.kind, c.term HAVING sum(c.change) <> 0
), rarity AS (
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df)
  SELECT $1, c.user_id, c.kind, c.term, c.change FROM term_changes AS c
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = d.df + excluded.df
  RETURNING 1
), lengths AS (
  UPDATE memory_partitions AS p SET term_total = p.term_total + c.change
    FROM (SELECT o.user_id, o.kind, sum(g.dl - o.term_count) AS change
            FROM old AS o JOIN given AS g ON g.id = o.id GROUP BY o.user_id, o.kind) AS c
   WHERE p.region = $1 AND p.user_id = c.user_id AND p.kind = c.kind
  RETURNING 1
), moved AS (
  INSERT INTO naaba_settings (name, value) VALUES ('${CURSOR}', $8)
  ON CONFLICT (name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT count(*) FROM rewritten)::int4 AS rewritten, (SELECT count(*) FROM moved)::int4 AS moved`;

export const REWRITE = rewriteSql('embedding');

/** The postings of a batch's rows as the rewrite takes them: parallel arrays of id, term and frequency, and each row's length. */
function postingsOf(rows: readonly { id: string; content: string }[], analyzer: LexicalAnalyzer) {
  const ids: string[] = [];
  const terms: string[] = [];
  const frequencies: number[] = [];
  const lengths: number[] = [];
  for (const row of rows) {
    const counts = analyzer.frequencies(row.content);
    checkedTerms([...counts.keys()]);
    let length = 0;
    for (const [term, n] of counts) {
      ids.push(row.id);
      terms.push(term);
      frequencies.push(n);
      length += n;
    }
    lengths.push(length);
  }
  return { ids, terms, frequencies, lengths };
}

async function readCursor(db: SqlClient, target: string): Promise<Cursor | undefined> {
  const [row] = await db.query<{ value: string }>('SELECT value FROM naaba_settings WHERE name = $1', [CURSOR]);
  if (!row) return undefined;
  const cursor = JSON.parse(row.value) as Cursor;
  return cursor.target === target ? cursor : undefined;
}

/** The dimension of the new-dimension column if it exists (a run of another target may have left it). */
async function nextColumnDimensions(db: SqlClient): Promise<number | undefined> {
  const [row] = await db.query<{ type: string }>(
    `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute AS a
      WHERE a.attrelid = 'memories'::regclass AND a.attname = '${NEXT_COLUMN}' AND NOT a.attisdropped`,
  );
  return row ? Number(/\((\d+)\)/.exec(row.type)?.[1]) : undefined;
}

/**
 * Prepares a change of dimension: a nullable column of the new dimension beside the old one,
 * reused when an interrupted run for the same dimension left it, replaced when it has another.
 * On CockroachDB the vector index would have to be rebuilt over the new column, which this does
 * not do: a cluster moves to another dimension by `naaba export` into a new database.
 */
async function prepareResize(db: SqlClient, from: number, to: number): Promise<void> {
  if (db.engine === 'cockroach') {
    throw new SchemaError(
      `the schema stores ${from}-dimensional vectors and the embedder makes ${to}; on CockroachDB a new dimension needs a new database: \`naaba export\` from this one, \`naaba migrate\` and \`naaba import\` into the new one`,
    );
  }
  const existing = await nextColumnDimensions(db);
  if (existing === to) return;
  await inTransaction(db, async (session) => {
    if (existing !== undefined) await session.query(`ALTER TABLE memories DROP COLUMN ${NEXT_COLUMN}`);
    await session.query(`ALTER TABLE memories ADD COLUMN ${NEXT_COLUMN} vector(${to})`);
  });
}

/** Ends a change of dimension in one transaction: the new column becomes `embedding`, and the schema records its dimension. */
async function finishResize(db: SqlClient, to: number): Promise<void> {
  await inTransaction(db, async (session) => {
    await session.query('ALTER TABLE memories DROP COLUMN embedding');
    await session.query(`ALTER TABLE memories RENAME COLUMN ${NEXT_COLUMN} TO embedding`);
    await session.query('ALTER TABLE memories ALTER COLUMN embedding SET NOT NULL');
    await session.query(RECORD_SETTING, ['embedding_dimensions', String(to)]);
  });
}

/**
 * Rewrites every stored embedding and lexical terms with the given embedder and analyzer, in
 * bounded batches ordered by (region, id). Each batch is one statement that also records how far
 * it got, so an interrupted run continues where it stopped when run again with the same
 * embedder and analyzer. At the end the schema records them, and start-up accepts the database.
 * Writers must be stopped meanwhile (a local data folder is locked; a cluster's endpoints must be
 * drained): a memory written by the old embedder behind the cursor would be missed.
 *
 * An embedder of another dimension (PostgreSQL and PGlite): the new vectors go to a column of
 * their own while the old ones stay usable, rows still without one are caught up after the
 * walk, and one transaction then swaps the columns and records the new dimension. A stop at
 * any point leaves a database the old embedder still opens, and running again continues.
 */
export async function reembed(
  db: SqlClient,
  embedder: Embedder,
  analyzer: LexicalAnalyzer,
  options: ReembedOptions,
): Promise<ReembedProgress> {
  const facts = await schemaFacts(db);
  const resize = facts.dimensions !== embedder.dimensions;
  if (resize) await prepareResize(db, facts.dimensions, embedder.dimensions);
  // Cells are means of the old vectors: recall reads every memory exactly until the sweeper builds them again.
  if (db.engine !== 'cockroach') await db.query(CLEAR_ALL_CELLS);
  const rewrite = rewriteSql(resize ? NEXT_COLUMN : 'embedding');
  const current: IndexedWith = { embedder: embedder.name, lexical: analyzer.name };
  const target = `${current.embedder} + ${current.lexical}`;
  const [all] = await db.query<{ n: number }>('SELECT count(*)::int4 AS n FROM memories');
  const total = all?.n ?? 0;
  let cursor = await readCursor(db, target);
  let done = cursor ? ((await db.query<{ n: number }>(DONE_SO_FAR, [cursor.region, cursor.id]))[0]?.n ?? 0) : 0;
  /** Embeds and rewrites one batch of rows (any regions), moving the cursor to its last row of each region. */
  const rewriteBatch = async (rows: readonly { region: string; id: string; content: string }[]) => {
    const vectors: string[] = [];
    for (const row of rows) {
      vectors.push(toVectorLiteral(checkedEmbedding(await embedder.embed(row.content), embedder.dimensions, embedder.name)));
    }
    for (const region of new Set(rows.map((r) => r.region))) {
      const mine = rows.flatMap((r, i) => (r.region === region ? [{ ...r, vector: vectors[i] ?? '' }] : []));
      const last = mine.at(-1);
      if (!last) continue;
      const postings = postingsOf(mine, analyzer);
      await db.query(rewrite, [
        region,
        mine.map((r) => r.id),
        mine.map((r) => r.vector),
        postings.ids,
        postings.terms,
        postings.frequencies,
        postings.lengths,
        JSON.stringify({ target, region, id: last.id }),
      ]);
      cursor = { target, region, id: last.id };
    }
  };
  for (;;) {
    const rows = cursor
      ? await db.query<{ region: string; id: string; content: string }>(NEXT, [cursor.region, cursor.id, options.batch])
      : await db.query<{ region: string; id: string; content: string }>(FIRST, [options.batch]);
    if (rows.length === 0) break;
    await rewriteBatch(rows);
    done = Math.min(total, done + rows.length);
    options.onBatch?.({ done, total });
  }
  if (resize) {
    // Rows the walk could not see (written behind the cursor) must have a vector before the swap.
    for (;;) {
      const rows = await db.query<{ region: string; id: string; content: string }>(MISSING_NEXT, [options.batch]);
      if (rows.length === 0) break;
      await rewriteBatch(rows);
    }
    await finishResize(db, embedder.dimensions);
  }
  await recordIndexedWith(db, current);
  await db.query('DELETE FROM naaba_settings WHERE name = $1', [CURSOR]);
  return { done, total };
}
