import { StoreBusyError } from '../../../memory/errors.js';
import { defaultRetryPolicy, type RetryPolicy, withRetry } from '../retry.js';
import { inQueue, type Query, type SqlClient } from '../sql-client.js';

/**
 * Migrations on a live, populated database (decision 0099). A migration file may mark a statement
 * as a backfill step with a comment line `-- naaba:backfill` inside it: the statement writes at
 * most `{{batch}}` rows, only rows not yet done, and the runner sends it again, each time as its
 * own transaction, until it changes no row. A kill between two batches loses nothing: the next
 * run starts again from what is not done. On PostgreSQL a `CREATE INDEX CONCURRENTLY` also runs
 * on its own, outside any transaction, so that writers never wait for an index build.
 */

/** The rows one batch of a backfill step writes at most, unless `naaba migrate --batch` says otherwise. */
export const DEFAULT_BATCH_ROWS = 5_000;

/** A stretch of a migration file run one way. */
export type MigrationPhase =
  /** Plain statements, in one transaction (PostgreSQL) or one after another (CockroachDB). */
  | { readonly kind: 'together'; readonly statements: readonly string[] }
  /** A statement that may not run inside a transaction: PostgreSQL's `CREATE INDEX CONCURRENTLY`. */
  | { readonly kind: 'alone'; readonly statement: string }
  /** A backfill step, run in batches until it changes no row. */
  | { readonly kind: 'batches'; readonly statement: string };

const BACKFILL = /^--\s*naaba:backfill\s*$/m;
const CONCURRENTLY = /^\s*(CREATE\s+(UNIQUE\s+)?|DROP\s+)INDEX\s+CONCURRENTLY\b/i;

/** The statement's code, comment lines left out. */
export const codeOf = (statement: string): string =>
  statement
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .trim();

/** Whether a migration holds anything the runner must run outside one transaction. */
export function runsInPhases(statements: readonly string[]): boolean {
  return statements.some((s) => BACKFILL.test(s) || CONCURRENTLY.test(codeOf(s)));
}

/** The file's statements grouped into phases, in order: expand, backfill, then what follows it. */
export function migrationPhases(statements: readonly string[]): MigrationPhase[] {
  const phases: MigrationPhase[] = [];
  let together: string[] = [];
  const flush = () => {
    if (together.length > 0) phases.push({ kind: 'together', statements: together });
    together = [];
  };
  for (const statement of statements) {
    if (BACKFILL.test(statement)) {
      if (!codeOf(statement).includes('{{batch}}')) {
        throw new Error(`a backfill step must bound its batch with {{batch}}: ${codeOf(statement).slice(0, 60)}…`);
      }
      flush();
      phases.push({ kind: 'batches', statement });
    } else if (CONCURRENTLY.test(codeOf(statement))) {
      flush();
      phases.push({ kind: 'alone', statement });
    } else {
      together.push(statement);
    }
  }
  flush();
  return phases;
}

/** What a backfill step has done so far: what `naaba migrate` prints. */
export interface BackfillProgress {
  readonly file: string;
  /** The step's place among the file's backfill steps, from 1. */
  readonly step: number;
  readonly rows: number;
  readonly batches: number;
  readonly elapsedMs: number;
  /** The slowest batch so far. */
  readonly longestBatchMs: number;
  /** The median batch so far: how long a writer of the rows a batch holds may wait. */
  readonly medianBatchMs: number;
  /** When done: how long ago the last batch (the one that found nothing left) started. */
  readonly sinceFinalBatchMs: number;
  readonly done: boolean;
}

/** One progress line, for a person. */
export function progressLine(p: BackfillProgress): string {
  const rate = p.elapsedMs > 0 ? Math.round((p.rows * 1000) / p.elapsedMs) : 0;
  const state = p.done ? 'done' : 'running';
  return `${p.file}: backfill ${p.step} ${state}: ${p.rows.toLocaleString('en')} rows in ${p.batches} batches, ${rate.toLocaleString('en')} rows/s, median batch ${Math.round(p.medianBatchMs)} ms, slowest ${Math.round(p.longestBatchMs)} ms`;
}

export interface BackfillOptions {
  readonly file: string;
  readonly step: number;
  readonly batchRows: number;
  /** Called at most every `everyMs` while batches change rows, and once when a step that changed rows is done. */
  readonly progress?: ((p: BackfillProgress) => void) | undefined;
  readonly everyMs?: number;
  /** The rest after a cancelled batch; `BATCH_HOLD_MS` unless a test says otherwise. */
  readonly restAfterCancelMs?: number;
}

/**
 * How a backfill batch is retried after a serialization failure or a deadlock with the traffic it
 * runs beside: as a statement is, but within two minutes rather than a request's 3 s. No request
 * waits on a migration, and one batch on a loaded server can take longer than 3 s by itself (a
 * deadlock is found only after `deadlock_timeout`, 1 s by default), so with the request's budget a
 * batch that deadlocked gave up after its first attempt and stopped the migration (decision 0122).
 */
export const BACKFILL_RETRY: RetryPolicy = { ...defaultRetryPolicy, attempts: 8, budgetMs: 120_000 };

/**
 * How long one batch may hold the rows it changes: what a request that meets them waits, within its
 * own 3 s retry budget (decision 0153). A batch slower than this halves the next one, down to
 * `MIN_BATCH_ROWS`; one four times faster doubles it, up to the size asked for. The first batch is
 * the floor: a step learns how fast the server is before it takes many rows at once.
 */
export const BATCH_TARGET_MS = 400;
export const MIN_BATCH_ROWS = 100;

/**
 * The hard bounds behind the target (decision 0154), set on each batch's own transaction: a batch
 * waits at most `BATCH_LOCK_WAIT_MS` for a row a request holds, and then gives way (tried again,
 * as after a deadlock) rather than hold its own rows while it waits; and a batch that runs past
 * `BATCH_HOLD_MS` is cancelled, its rows released, and tried again at half its size. So no request
 * waits on a batch much longer than `BATCH_HOLD_MS`, however slow the machine is at that moment.
 */
export const BATCH_LOCK_WAIT_MS = 200;
export const BATCH_HOLD_MS = 1_000;

/** Batches in a row cancelled at the floor before the step stops and says so: the server is too busy to migrate now. */
export const MAX_CANCELLED_AT_FLOOR = 30;

/** The first batch's size: the floor, or the size asked for when that is smaller. */
export const firstBatchSize = (most: number): number => Math.min(most, MIN_BATCH_ROWS);

/** The next batch's size after one of `size` rows took `tookMs` (the size asked for is the most). */
export function nextBatchSize(size: number, tookMs: number, most: number): number {
  if (tookMs > BATCH_TARGET_MS) return Math.max(Math.min(MIN_BATCH_ROWS, most), Math.floor(size / 2));
  if (tookMs < BATCH_TARGET_MS / 4) return Math.min(most, size * 2);
  return size;
}

/** The settings that bound one batch's transaction. */
const BATCH_BOUNDS: readonly Query[] = [
  { text: `SET LOCAL lock_timeout = '${BATCH_LOCK_WAIT_MS}ms'`, values: [] },
  { text: `SET LOCAL statement_timeout = '${BATCH_HOLD_MS}ms'`, values: [] },
];

/** Whether a batch was cancelled by its own `BATCH_HOLD_MS` (SQLSTATE 57014, query canceled). */
const cancelled = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === '57014';

/**
 * Whether a batch gave way on rows requests held at every one of its retries (each attempt's last
 * error SQLSTATE 55P03, `BATCH_LOCK_WAIT_MS` passed): the traffic is busy on those rows at this
 * moment, which is no reason to stop the migration. It is treated as a cancelled batch: halved,
 * rested, and counted towards `MAX_CANCELLED_AT_FLOOR`.
 */
const gaveWay = (error: unknown): boolean =>
  error instanceof StoreBusyError && (error.cause as { code?: unknown } | null | undefined)?.code === '55P03';

const rest = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a backfill step until a batch changes no row. Each batch is one statement, its own
 * transaction, at READ COMMITTED where the engine has it (a step numbers or counts rows no
 * running code writes, so it needs no stronger isolation, and takes no predicate locks), bounded
 * by `BATCH_BOUNDS`, retried after a serialization failure, a deadlock or a lock it gave way on
 * (`BACKFILL_RETRY`), and tried again smaller when cancelled or when it gave way at every retry.
 * Returns the rows changed.
 */
export async function runBackfill(db: SqlClient, statement: string, options: BackfillOptions): Promise<number> {
  const code = codeOf(statement).replace(/;\s*$/, '');
  const counted = (size: number) => ({
    text: `WITH step AS (${code.replaceAll('{{batch}}', String(size))}\nRETURNING 1) SELECT count(*)::int AS changed FROM step`,
    values: [],
  });
  let size = firstBatchSize(options.batchRows);
  let cancelledAtFloor = 0;
  const started = performance.now();
  let rows = 0;
  let batches = 0;
  let longestBatchMs = 0;
  const durations: number[] = [];
  let reported = started;
  let batchStarted = started;
  const report = (done: boolean) =>
    options.progress?.({
      file: options.file,
      step: options.step,
      rows,
      batches,
      elapsedMs: performance.now() - started,
      longestBatchMs,
      sinceFinalBatchMs: done ? performance.now() - batchStarted : 0,
      medianBatchMs: [...durations].sort((a, b) => a - b)[Math.floor(durations.length / 2)] ?? 0,
      done,
    });
  for (;;) {
    batchStarted = performance.now();
    let found: { changed: number | string } | undefined;
    try {
      [found] = await withRetry(() => inQueue<{ changed: number | string }>(db, BATCH_BOUNDS, counted(size)), BACKFILL_RETRY);
    } catch (error) {
      if (!cancelled(error) && !gaveWay(error)) throw error;
      const floor = firstBatchSize(options.batchRows);
      cancelledAtFloor = size <= floor ? cancelledAtFloor + 1 : 0;
      if (cancelledAtFloor >= MAX_CANCELLED_AT_FLOOR) {
        throw new Error(
          `${options.file}: backfill ${options.step} stopped: ${MAX_CANCELLED_AT_FLOOR} batches of ${size} rows in a row ran past ${BATCH_HOLD_MS} ms or gave way to requests holding their rows, so the server is too busy to migrate beside its traffic now; what is done is kept, run the migration again later`,
          { cause: error },
        );
      }
      size = Math.max(floor, Math.floor(size / 2));
      // The machine is slow at this moment: the requests the batch held back go first.
      await rest(options.restAfterCancelMs ?? BATCH_HOLD_MS);
      continue;
    }
    cancelledAtFloor = 0;
    const row = found;
    const changed = Number(row?.changed ?? 0);
    if (changed === 0) break;
    durations.push(performance.now() - batchStarted);
    longestBatchMs = Math.max(longestBatchMs, performance.now() - batchStarted);
    rows += changed;
    batches += 1;
    size = nextBatchSize(size, performance.now() - batchStarted, options.batchRows);
    if (performance.now() - reported >= (options.everyMs ?? 2_000)) {
      reported = performance.now();
      report(false);
    }
  }
  // A step with nothing to do (a new database) says nothing.
  if (batches > 0) report(true);
  return rows;
}
