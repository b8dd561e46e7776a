import type { LexicalAnalyzer } from '../../../memory/lexical.js';
import type { Embedder } from '../../../ports/embedder.js';
import { checkedEmbedding } from '../../embedding-check.js';
import { checkedTerms } from '../lexemes.js';
import { inTransaction, type SqlClient } from '../sql-client.js';
import { send } from '../sql/statement.js';
import { REEMBED_ADD_COLUMN } from '../statements/maintenance/reembed-add-column.js';
import { REEMBED_CLEAR_CELLS } from '../statements/maintenance/reembed-clear-cells.js';
import { REEMBED_DONE } from '../statements/maintenance/reembed-done.js';
import { REEMBED_DROP_NEXT_COLUMN } from '../statements/maintenance/reembed-drop-next-column.js';
import { REEMBED_DROP_OLD_COLUMN } from '../statements/maintenance/reembed-drop-old-column.js';
import { REEMBED_FIRST } from '../statements/maintenance/reembed-first.js';
import { REEMBED_MISSING } from '../statements/maintenance/reembed-missing.js';
import { REEMBED_NEXT } from '../statements/maintenance/reembed-next.js';
import { REEMBED_NEXT_COLUMN } from '../statements/maintenance/reembed-next-column.js';
import { REEMBED_RENAME_COLUMN } from '../statements/maintenance/reembed-rename-column.js';
import { REEMBED_REQUIRE_VECTORS } from '../statements/maintenance/reembed-require-vectors.js';
import { REEMBED_REWRITE } from '../statements/maintenance/reembed-rewrite.js';
import { REEMBED_TOTAL } from '../statements/maintenance/reembed-total.js';
import { DELETE_SETTING } from '../statements/schema/delete-setting.js';
import { READ_SETTING } from '../statements/schema/read-setting.js';
import { RECORD_SETTING } from '../statements/schema/record-setting.js';
import { toVectorLiteral } from '../vector.js';
import { type IndexedWith, recordIndexedWith, SchemaError, schemaFacts } from './facts.js';

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

/** The postings of a batch's rows as the rewrite takes them: parallel arrays of id, term, frequency and passage mask, and each row's length. */
function postingsOf(rows: readonly { id: string; content: string }[], analyzer: LexicalAnalyzer) {
  const ids: string[] = [];
  const terms: string[] = [];
  const frequencies: number[] = [];
  const passages: number[] = [];
  const lengths: number[] = [];
  for (const row of rows) {
    const counts = analyzer.frequencies(row.content);
    const masks = analyzer.passages(row.content);
    checkedTerms([...counts.keys()]);
    let length = 0;
    for (const [term, n] of counts) {
      ids.push(row.id);
      terms.push(term);
      frequencies.push(n);
      passages.push(masks.get(term) ?? 1);
      length += n;
    }
    lengths.push(length);
  }
  return { ids, terms, frequencies, passages, lengths };
}

async function readCursor(db: SqlClient, target: string): Promise<Cursor | undefined> {
  const [row] = await send(db, READ_SETTING, { name: CURSOR });
  if (!row) return undefined;
  const cursor = JSON.parse(row.value) as Cursor;
  return cursor.target === target ? cursor : undefined;
}

/** The dimension of the new-dimension column if it exists (a run of another target may have left it). */
async function nextColumnDimensions(db: SqlClient): Promise<number | undefined> {
  const [row] = await send(db, REEMBED_NEXT_COLUMN, {});
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
    if (existing !== undefined) await send(session, REEMBED_DROP_NEXT_COLUMN, {});
    await send(session, REEMBED_ADD_COLUMN, { dimensions: to });
  });
}

/** Ends a change of dimension in one transaction: the new column becomes `embedding`, and the schema records its dimension. */
async function finishResize(db: SqlClient, to: number): Promise<void> {
  await inTransaction(db, async (session) => {
    await send(session, REEMBED_DROP_OLD_COLUMN, {});
    await send(session, REEMBED_RENAME_COLUMN, {});
    await send(session, REEMBED_REQUIRE_VECTORS, {});
    await send(session, RECORD_SETTING, { name: 'embedding_dimensions', value: String(to) });
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
  if (db.engine !== 'cockroach') await send(db, REEMBED_CLEAR_CELLS, {});
  const column = resize ? 'embedding_next' : 'embedding';
  const current: IndexedWith = { embedder: embedder.name, lexical: analyzer.name };
  const target = `${current.embedder} + ${current.lexical}`;
  const [all] = await send(db, REEMBED_TOTAL, {});
  const total = all?.n ?? 0;
  let cursor = await readCursor(db, target);
  let done = cursor ? ((await send(db, REEMBED_DONE, { region: cursor.region, id: cursor.id }))[0]?.n ?? 0) : 0;
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
      await send(db, REEMBED_REWRITE, {
        region,
        column,
        ids: mine.map((r) => r.id),
        embeddings: mine.map((r) => r.vector),
        postingIds: postings.ids,
        postingTerms: postings.terms,
        postingFrequencies: postings.frequencies,
        postingPassages: postings.passages,
        lengths: postings.lengths,
        cursor: JSON.stringify({ target, region, id: last.id }),
      });
      cursor = { target, region, id: last.id };
    }
  };
  for (;;) {
    const rows = cursor
      ? await send(db, REEMBED_NEXT, { region: cursor.region, id: cursor.id, batch: options.batch })
      : await send(db, REEMBED_FIRST, { batch: options.batch });
    if (rows.length === 0) break;
    await rewriteBatch(rows);
    done = Math.min(total, done + rows.length);
    options.onBatch?.({ done, total });
  }
  if (resize) {
    // Rows the walk could not see (written behind the cursor) must have a vector before the swap.
    for (;;) {
      const rows = await send(db, REEMBED_MISSING, { batch: options.batch });
      if (rows.length === 0) break;
      await rewriteBatch(rows);
    }
    await finishResize(db, embedder.dimensions);
  }
  await recordIndexedWith(db, current);
  await send(db, DELETE_SETTING, { name: CURSOR });
  return { done, total };
}
