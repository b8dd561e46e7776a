import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { FairQueue, type TurnWatch, watchTurn } from './fair-queue.js';
import { inlined } from './inlined.js';
import { chooseBuffers } from './pglite-buffers.js';
import type { Query, SqlClient } from './sql-client.js';
import { send } from './sql/statement.js';
import { SAMPLED_COLUMNS } from './statements/schema/sampled-columns.js';
import { STALE_STATISTICS } from './statements/schema/stale-statistics.js';
import { TABLE_VISIBILITY } from './statements/schema/table-visibility.js';

/**
 * The statistics target of the local engine's ANALYZE (PostgreSQL's default is 100): 300 × 20 rows
 * sampled per table whatever its size, 20 most common values per column. At 100 the ANALYZE of a
 * 50,000-memory table held the one session for well over 100 ms; at 30, `ANALYZE memories` still
 * took 195–214 ms at 50,000 in a data folder, 112 ms at 20 (decision 0121); at 10, `npm run
 * verify:plan` once saw recall's read of what follows a hit become a hash join over the user's
 * origins in two runs of three (decision 0105), so 20 keeps a margin above it.
 */
export const STATISTICS_SAMPLE = 20;

/**
 * Columns ANALYZE leaves out: the widest of a row (a vector of the embedder's dimension, the text,
 * lists), which no statement filters, joins or groups on, so the planner never asks for their
 * statistics. Sorting 9,000 sampled vectors and texts was most of what `ANALYZE memories` cost
 * (decision 0117).
 */
export const UNSAMPLED_COLUMNS = ['embedding', 'embedding_next', 'content', 'restated_by', 'terms', 'centroid'];

const analyzeScript = (table: string, columns: string) =>
  `BEGIN; SET LOCAL default_statistics_target = ${STATISTICS_SAMPLE}; ANALYZE ${table} (${columns}); COMMIT`;

/**
 * How a data folder keeps its write-ahead log (decision 0160): a checkpoint deletes the segments it
 * no longer needs instead of renaming them for reuse. With PostgreSQL's default (`wal_recycle=on`)
 * a checkpoint after a bulk load kept up to `max_wal_size` (1 GB) of old segments in the folder for
 * a load that never comes; without it the folder keeps the segment being written and the next one.
 */
export const FOLDER_WAL = ['wal_recycle=off'] as const;

/** A table whose all-visible pages are fewer than this share of its pages is vacuumed when the database opens. */
const VISIBLE_SHARE = 0.8;

async function timed(
  onStep: ((statement: string, ms: number) => void) | undefined,
  statement: string,
  work: () => Promise<void>,
) {
  const turn: TurnWatch = {};
  const asked = performance.now();
  await watchTurn(turn, work);
  // From its (last) statement's turn: what it waited while requests ran is not its cost (decision 0161).
  onStep?.(statement, performance.now() - (turn.startedAt ?? asked));
}

/**
 * PostgreSQL in WebAssembly, in this process: the local and test engine. Never bundled for Lambda.
 * Statements take fair turns by caller (`FairQueue`, decision 0063).
 */
export class PgliteSqlClient implements SqlClient {
  readonly engine = 'postgres' as const;

  private statistics: NodeJS.Timeout | undefined;
  private readonly turns = new FairQueue();

  private constructor(readonly db: PGlite) {}

  /**
   * Opens (or creates) a database under `dataDir`, or in memory when none is given; `copyOf` (a
   * `dumpDataDir` tarball) starts a new database as a copy of another instead of running initdb.
   * A database in a folder gets `buffersMb` of shared buffers, or as many as its data calls for
   * (`chooseBuffers`, decision 0155), and a checkpoint deletes the log it no longer needs (`FOLDER_WAL`).
   */
  static async open(dataDir?: string, copyOf?: Blob, buffersMb?: number): Promise<PgliteSqlClient> {
    const db = await PGlite.create(dataDir ?? 'memory://', {
      extensions: { vector },
      // PGlite's start parameters replace its defaults, so they are kept and ours are added.
      ...(dataDir && {
        startParams: [
          ...PGlite.defaultStartParams,
          '-c',
          `shared_buffers=${chooseBuffers(dataDir, buffersMb).mb}MB`,
          ...FOLDER_WAL.flatMap((setting) => ['-c', setting]),
        ],
      }),
      ...(copyOf && { loadDataDir: copyOf }),
    });
    return new PgliteSqlClient(db);
  }

  /** The whole database as an uncompressed tarball, for {@link PgliteSqlClient.open}'s `copyOf`. */
  async dump(): Promise<Blob> {
    return this.turns.run(() => this.db.dumpDataDir('none'));
  }

  async query<R>(query: Query): Promise<R[]> {
    const result = await this.turns.run(() => this.db.query<R>(query.text, [...query.values]));
    return result.rows;
  }

  /**
   * Refreshes planner statistics of the tables that grew by a fifth since they were last analysed
   * (PGlite runs no autovacuum): without statistics the planner reads a user's rows through
   * region-wide indexes and remember slows down as everyone's data grows. Cheap when nothing grew:
   * one catalog read comparing each table's size on disk with its recorded size. Each table's
   * ANALYZE is a statement of its own, so other callers take their turns in between, and samples
   * `STATISTICS_SAMPLE` × 300 rows whatever the table's size (decision 0105). It never vacuums: a
   * VACUUM cannot be cut into steps and held every caller for seconds at 50,000 memories; the
   * database vacuums when it opens instead (`vacuumWhereNeeded`, decision 0117). `onStep` hears each
   * statement's duration. Returns the tables it refreshed.
   */
  async refreshStatistics(onStep?: (statement: string, ms: number) => void): Promise<string[]> {
    const grown = (await send(this, STALE_STATISTICS, {})).map((g) => g.table);
    for (const table of grown) await timed(onStep, `ANALYZE ${table}`, () => this.analyze(table));
    return grown;
  }

  /**
   * The statistics refresh, then VACUUM of the tables more than a fifth of whose pages their last
   * ANALYZE or VACUUM counted as not all-visible (dead rows, or pages written since the last
   * VACUUM); run when the database opens, before anyone is served (decision 0117). Without it the
   * dead rows of touches and cell moves pile up and an index-only scan reads the heap for every
   * changed page. Two catalog reads when nothing needs doing, so a command-line call that opens the
   * folder pays nothing. Returns the tables it vacuumed.
   */
  async vacuumWhereNeeded(onStep?: (statement: string, ms: number) => void): Promise<string[]> {
    await this.refreshStatistics(onStep);
    const unvacuumed = (await send(this, TABLE_VISIBILITY, {}))
      .filter((t) => t.visible < VISIBLE_SHARE * t.pages)
      .map((t) => t.table);
    for (const table of unvacuumed) await timed(onStep, `VACUUM ${table}`, () => this.exec(`VACUUM ${table}`));
    return unvacuumed;
  }

  /** ANALYZE of one table as the statistics refresh runs it: from a small sample (decision 0105), its widest columns left out (decision 0117). */
  async analyze(table: string): Promise<void> {
    const [found] = await send(this, SAMPLED_COLUMNS, { table, skipped: UNSAMPLED_COLUMNS });
    if (found?.columns) await this.exec(analyzeScript(table, found.columns));
  }

  /** Refreshes statistics now and every `everyMs` while open (the timer never keeps the process alive). */
  async keepStatisticsCurrent(everyMs: number): Promise<void> {
    await this.vacuumWhereNeeded();
    this.statistics = setInterval(() => {
      this.refreshStatistics().catch(() => undefined);
    }, everyMs);
    this.statistics.unref();
  }

  /**
   * A queued write as one message, as on a server (decision 0099): one implicit transaction, one
   * turn. Nothing contends on this one connection, but the statement count is the same.
   */
  async queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    const text = [...locks, query].map(inlined).join(';\n');
    const results = await this.turns.run(() => this.db.exec(text));
    return (results.at(-1)?.rows ?? []) as R[];
  }

  async exec(script: string): Promise<void> {
    await this.turns.run(() => this.db.exec(script));
  }

  async close(): Promise<void> {
    clearInterval(this.statistics);
    if (!this.db.closed) await this.db.close();
  }
}
