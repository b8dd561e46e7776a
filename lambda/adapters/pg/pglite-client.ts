import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { FairQueue } from './fair-queue.js';
import { inlined } from './inlined.js';
import type { Query, SqlClient } from './sql-client.js';
import { send } from './sql/statement.js';
import { STALE_STATISTICS } from './statements/schema/stale-statistics.js';

/**
 * The statistics target of the local engine's ANALYZE (PostgreSQL's default is 100): 300 × 30 rows
 * sampled per table whatever its size, 30 most common values per column. At 100 the ANALYZE of a
 * 50,000-memory table held the one session for well over 100 ms; at 10, `npm run verify:plan` saw
 * recall's read of what follows a hit become a hash join over the user's origins in two runs of
 * three (decision 0105).
 */
export const STATISTICS_SAMPLE = 30;

const analyzeScript = (table: string) =>
  `BEGIN; SET LOCAL default_statistics_target = ${STATISTICS_SAMPLE}; ANALYZE ${table}; COMMIT`;

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
   */
  static async open(dataDir?: string, copyOf?: Blob): Promise<PgliteSqlClient> {
    const db = await PGlite.create(dataDir ?? 'memory://', { extensions: { vector }, ...(copyOf && { loadDataDir: copyOf }) });
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
   * Refreshes planner statistics and vacuums the tables that grew by a fifth since they were last
   * analysed (PGlite runs no autovacuum): without statistics the planner reads a user's rows
   * through region-wide indexes and remember slows down as everyone's data grows; without vacuum
   * the dead rows of every touch pile up and no index-only scan skips the heap. Cheap when
   * nothing grew: one catalog read comparing each table's size on disk with its recorded size.
   * Each table's ANALYZE, then each table's VACUUM, is a statement of its own, so other callers
   * take their turns in between (decision 0105); ANALYZE samples `STATISTICS_SAMPLE` × 300 rows,
   * whatever the table's size. `onStep` hears each statement's duration. Returns the tables it refreshed.
   */
  async refreshStatistics(onStep?: (statement: string, ms: number) => void): Promise<string[]> {
    const grown = (await send(this, STALE_STATISTICS, {})).map((g) => g.table);
    const step = async (statement: string, script: string) => {
      const started = performance.now();
      await this.exec(script);
      onStep?.(statement, performance.now() - started);
    };
    for (const table of grown) await step(`ANALYZE ${table}`, analyzeScript(table));
    for (const table of grown) await step(`VACUUM ${table}`, `VACUUM ${table}`);
    return grown;
  }

  /** ANALYZE of one table as the statistics refresh runs it: from a small sample (decision 0105). */
  async analyze(table: string): Promise<void> {
    await this.exec(analyzeScript(table));
  }

  /** Refreshes statistics now and every `everyMs` while open (the timer never keeps the process alive). */
  async keepStatisticsCurrent(everyMs: number): Promise<void> {
    await this.refreshStatistics();
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
