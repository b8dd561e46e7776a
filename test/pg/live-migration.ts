import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withRetry } from '../../lambda/adapters/pg/retry.js';
import type { BackfillProgress } from '../../lambda/adapters/pg/schema/backfill.js';
import { ContractPendingError, migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { asRead, type SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { param, sql } from '../../lambda/adapters/pg/sql/template.js';

/**
 * A populated database upgraded while it serves (decision 0099): the schema as it stood before the
 * origin-place backfill (PostgreSQL 0010), `rows` memories loaded in bulk, then every later
 * migration applied by the batched runner while writers and readers keep calling it with
 * statements valid at that older schema. Afterwards: every memory with an origin has the place the
 * single-statement backfill would give it, the partition counts match the memories, no row was
 * lost, and no call failed. Shared by the jest suites (PGlite, PostgreSQL) and
 * `npm run test:migrate-live`.
 */

/** The migration whose backfill the run starts before. */
export const FIRST_LIVE_MIGRATION = '0010_origin_sequence.sql';
/** A small embedding dimension, so that a million rows fit a test machine. */
export const LIVE_DIMENSIONS = 4;
const REGION = 'eu-central-1';
const KINDS = ['fact', 'event'] as const;

export interface LiveMigrationOptions {
  readonly rows: number;
  readonly batchRows: number;
  readonly writers: number;
  readonly readers: number;
  readonly say?: (line: string) => void;
}

export interface LiveMigrationFigures {
  readonly rows: number;
  readonly applied: readonly string[];
  readonly migrationMs: number;
  readonly backfills: readonly BackfillProgress[];
  readonly calls: number;
  /** Calls that ended while the migrations ran. */
  readonly callsDuringMigration: number;
  readonly failed: number;
  /** Why the failed calls failed: SQLSTATE (or the error's name) and how many, so a failure explains itself. */
  readonly failures: Readonly<Record<string, number>>;
  readonly retried: number;
  readonly callP50Ms: number;
  readonly callP99Ms: number;
  readonly callMaxMs: number;
  readonly inserted: number;
  readonly deleted: number;
  /** Memories missing against loaded + inserted − deleted. */
  readonly lost: number;
  /** Memories with an origin and no place. */
  readonly unplaced: number;
  /**
   * Writes of a memory with an origin that were under way when the backfill ended: older code's
   * writes after the backfill get no place (as after the single statement), so the run writes no
   * more origins from then on, and only these may lack one.
   */
  readonly inFlightAtBackfillEnd: number;
  /** Loaded memories whose place differs from the single statement's (row number in time order). */
  readonly misplaced: number;
  /** Memories written during the run whose place is not after every loaded place of their origin, or is taken twice. */
  readonly placeClashes: number;
  /** Partitions whose kept count differs from the memories they hold. */
  readonly partitionMismatches: number;
}

/** The jest-size run: a few seconds. */
export const CI_LIVE_RUN: LiveMigrationOptions = { rows: 30_000, batchRows: 2_000, writers: 3, readers: 3 };

const userOf = (n: number) => sql`md5('live-user-' || (${param('n', n)}::int))::uuid`;

/** Loads `rows` memories in bulk (generate_series), ~200 per user over two kinds, three in five with one of 11 origins. */
export async function load(db: SqlClient, rows: number, say: (line: string) => void = () => undefined): Promise<number> {
  const users = Math.max(1, Math.round(rows / 200));
  const chunk = 100_000;
  for (let from = 0; from < rows; from += chunk) {
    const to = Math.min(rows, from + chunk) - 1;
    await db.query(sql`
INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, origin, agent, client)
SELECT gen_random_uuid(), ${param('region', REGION)}, md5('live-user-' || (g % ${param('users', users)}::int))::uuid,
       CASE WHEN (g / ${param('users', users)}::int) % 2 = 0 THEN 'fact' ELSE 'event' END,
       'loaded ' || g, md5('loaded ' || g),
       ('[' || (g % 7 + 1) || ',' || (g % 5) || ',' || (g % 3) || ',1]')::vector,
       timestamptz '2026-01-01 00:00:00+00' + (g / (3 * ${param('users', users)}::int)) * interval '1 second',
       timestamptz '2026-01-01 00:00:00+00',
       CASE WHEN g % 5 < 3 THEN 'origin-' || (g % 11) END, 'loader', 'live-migration'
  FROM generate_series(${param('from', from)}::int, ${param('to', to)}::int) AS g`);
    say(`loaded ${(to + 1).toLocaleString('en')} of ${rows.toLocaleString('en')} memories`);
  }
  await db.query(sql`INSERT INTO memory_partitions (region, user_id, kind, memories)
SELECT region, user_id, kind, count(*) FROM memories GROUP BY region, user_id, kind`);
  await db.exec('ANALYZE memories; ANALYZE memory_partitions');
  return users;
}

/** Applies the PostgreSQL migrations before {@link FIRST_LIVE_MIGRATION} to an empty database. */
export async function migrateBeforeBackfill(db: SqlClient): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-live-'));
  try {
    const shipped = readdirSync('sql/postgres').filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f));
    for (const file of shipped.filter((f) => f < FIRST_LIVE_MIGRATION)) {
      cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
    }
    await migrate(db, { embeddingDimensions: LIVE_DIMENSIONS, source: pathToFileURL(`${folder}/`) });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Statements valid at the schema before the backfill: what code of that release sends. */
const traffic = {
  insert: (user: number, kind: string, origin: string | null, n: number) => sql`
WITH written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, origin, agent, client)
  VALUES (gen_random_uuid(), ${param('region', REGION)}, ${userOf(user)}, ${param('kind', kind)}, ${param('content', `written ${n}`)},
          md5(${param('content', `written ${n}`)}), '[1,1,1,1]', now(), now(), ${param('origin', origin)}, 'writer', 'live-migration')
  RETURNING region, user_id, kind
)
INSERT INTO memory_partitions AS p (region, user_id, kind, memories)
SELECT region, user_id, kind, 1 FROM written
ON CONFLICT (region, user_id, kind) DO UPDATE SET memories = p.memories + 1
RETURNING 1 AS changed`,
  remove: (user: number, kind: string) => sql`
WITH gone AS (
  DELETE FROM memories
   WHERE region = ${param('region', REGION)} AND id = (
     SELECT id FROM memories
      WHERE region = ${param('region', REGION)} AND user_id = ${userOf(user)} AND kind = ${param('kind', kind)} AND origin IS NULL
      ORDER BY created_at LIMIT 1)
  RETURNING region, user_id, kind
)
UPDATE memory_partitions AS p SET memories = p.memories - 1
  FROM gone WHERE p.region = gone.region AND p.user_id = gone.user_id AND p.kind = gone.kind
RETURNING 1 AS changed`,
  recall: (user: number, kind: string) => sql`
WITH hits AS (
  SELECT id FROM memories
   WHERE region = ${param('region', REGION)} AND user_id = ${userOf(user)} AND kind = ${param('kind', kind)}
   ORDER BY embedding <=> '[1,2,1,1]' LIMIT 10
)
UPDATE memories AS m SET recall_count = m.recall_count + 1, last_useful_at = GREATEST(m.last_useful_at, now())
  FROM hits WHERE m.region = ${param('region', REGION)} AND m.id = hits.id
RETURNING m.id`,
  counts: (user: number) => sql`
SELECT kind, memories FROM memory_partitions WHERE region = ${param('region', REGION)} AND user_id = ${userOf(user)}`,
};

interface LoopState {
  stop: boolean;
  migrating: boolean;
  /** The origin-place backfill has ended: no more memories with an origin are written. */
  placed: boolean;
  /** When (performance.now) its last batch, which found nothing left, started. */
  finalBatchAt: number;
}

interface Tally {
  calls: number;
  during: number;
  failed: number;
  failures: Record<string, number>;
  retried: number;
  inserted: number;
  deleted: number;
  /** When each write of a memory with an origin ended. */
  originWrites: number[];
  latencies: number[];
}

/** One worker's loop until `stop()` says so; writers insert (two in three) and delete, readers recall and read counts. */
async function work(db: SqlClient, role: 'writer' | 'reader', users: number, tally: Tally, state: LoopState) {
  let n = 0;
  while (!state.stop) {
    n += 1;
    const user = Math.floor(Math.random() * users);
    const kind = KINDS[n % 2] ?? 'fact';
    const pick = Math.random();
    const withOrigin = role === 'writer' && pick < 1 / 3 && !state.placed;
    const query =
      role === 'writer'
        ? pick < 2 / 3
          ? traffic.insert(user, kind, withOrigin ? `origin-${n % 11}` : null, tally.calls * 1_000 + n + Math.random())
          : traffic.remove(user, kind)
        : pick < 0.8
          ? traffic.recall(user, kind)
          : traffic.counts(user);
    const started = performance.now();
    let attempts = 0;
    try {
      const rows = await withRetry(() => {
        attempts += 1;
        return asRead<{ changed?: number }>(db, query);
      });
      if (role === 'writer' && rows.length > 0) {
        if (pick < 2 / 3) tally.inserted += 1;
        else tally.deleted += 1;
      }
    } catch (error) {
      tally.failed += 1;
      const code = (error as { code?: unknown }).code;
      const why = typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
      tally.failures[why] = (tally.failures[why] ?? 0) + 1;
    }
    if (withOrigin) tally.originWrites.push(performance.now());
    tally.retried += attempts - 1;
    tally.latencies.push(performance.now() - started);
    tally.calls += 1;
    if (state.migrating) tally.during += 1;
  }
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** The checks against the single-statement backfill and the kept counts, as counts of what is wrong. */
export async function checkPlaces(
  db: SqlClient,
): Promise<Pick<LiveMigrationFigures, 'unplaced' | 'misplaced' | 'placeClashes' | 'partitionMismatches'> & { total: number }> {
  const [row] = await db.query<Record<string, string>>(sql`
WITH loaded AS (
  SELECT origin_seq, row_number() OVER (PARTITION BY region, user_id, origin, kind ORDER BY created_at, id) AS expected
    FROM memories WHERE origin IS NOT NULL AND content LIKE 'loaded %'
), last_loaded AS (
  SELECT region, user_id, origin, kind, max(origin_seq) AS place
    FROM memories WHERE origin IS NOT NULL AND content LIKE 'loaded %' GROUP BY region, user_id, origin, kind
), written AS (
  SELECT w.origin_seq, l.place FROM memories AS w
    LEFT JOIN last_loaded AS l ON l.region = w.region AND l.user_id = w.user_id AND l.origin = w.origin AND l.kind = w.kind
   WHERE w.origin IS NOT NULL AND w.content LIKE 'written %'
), taken AS (
  SELECT count(*) - count(DISTINCT (region, user_id, origin, kind, origin_seq)) AS twice FROM memories WHERE origin IS NOT NULL
), kept AS (
  SELECT count(*) AS wrong FROM memory_partitions AS p
    FULL JOIN (SELECT region, user_id, kind, count(*) AS n FROM memories GROUP BY region, user_id, kind) AS c
      ON c.region = p.region AND c.user_id = p.user_id AND c.kind = p.kind
   WHERE COALESCE(p.memories, 0) <> COALESCE(c.n, 0)
)
SELECT (SELECT count(*) FROM memories WHERE origin IS NOT NULL AND origin_seq IS NULL) AS unplaced,
       (SELECT count(*) FROM loaded WHERE origin_seq IS DISTINCT FROM expected) AS misplaced,
       (SELECT count(*) FROM written WHERE origin_seq <= COALESCE(place, 0)) + (SELECT twice FROM taken) AS clashes,
       (SELECT wrong FROM kept) AS mismatches,
       (SELECT count(*) FROM memories) AS total`);
  return {
    unplaced: Number(row?.unplaced),
    misplaced: Number(row?.misplaced),
    placeClashes: Number(row?.clashes),
    partitionMismatches: Number(row?.mismatches),
    total: Number(row?.total),
  };
}

/**
 * Runs the whole scenario on an empty database: `migrator` applies the migrations (PostgreSQL: its
 * own connection), `traffic` serves the workers (as many connections as workers where it has a pool).
 */
export async function runLiveMigration(
  migrator: SqlClient,
  traffic: SqlClient,
  options: LiveMigrationOptions,
): Promise<LiveMigrationFigures> {
  const say = options.say ?? (() => undefined);
  await migrateBeforeBackfill(migrator);
  say(
    `schema before ${FIRST_LIVE_MIGRATION}; loading ${options.rows.toLocaleString('en')} memories (embedding dimension ${LIVE_DIMENSIONS})`,
  );
  const users = await load(migrator, options.rows, say);

  const tally: Tally = {
    calls: 0,
    during: 0,
    failed: 0,
    failures: {},
    retried: 0,
    inserted: 0,
    deleted: 0,
    originWrites: [],
    latencies: [],
  };
  const state: LoopState = { stop: false, migrating: false, placed: false, finalBatchAt: 0 };
  const workers = [
    ...Array.from({ length: options.writers }, () => work(traffic, 'writer', users, tally, state)),
    ...Array.from({ length: options.readers }, () => work(traffic, 'reader', users, tally, state)),
  ];
  // Let the traffic settle before the migrations start.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const backfills: BackfillProgress[] = [];
  const started = performance.now();
  let applied: string[] = [];
  state.migrating = true;
  try {
    applied = await migrate(migrator, {
      embeddingDimensions: LIVE_DIMENSIONS,
      batchRows: options.batchRows,
      stopBeforeContract: true,
      progress: (p) => {
        if (p.done) backfills.push(p);
        if (p.done && p.file === FIRST_LIVE_MIGRATION) {
          state.placed = true;
          state.finalBatchAt = performance.now() - p.sinceFinalBatchMs;
        }
        say(
          `  ${p.file} backfill ${p.step}: ${p.rows.toLocaleString('en')} rows, ${p.batches} batches, ` +
            `${Math.round((p.rows * 1000) / Math.max(1, p.elapsedMs)).toLocaleString('en')} rows/s, median batch ${Math.round(p.medianBatchMs)} ms, ` +
            `slowest ${Math.round(p.longestBatchMs)} ms; traffic so far ${tally.calls} calls, ${tally.failed} failed${p.done ? ' (done)' : ''}`,
        );
      },
    });
  } catch (error) {
    if (!(error instanceof ContractPendingError)) throw error;
    applied = [...error.applied];
    say(`stopped before the contract ${error.file}, as naaba migrate does without --contract`);
  } finally {
    state.migrating = false;
  }
  const migrationMs = performance.now() - started;
  say(`applied ${applied.join(', ')} in ${(migrationMs / 1000).toFixed(1)} s while traffic ran`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  state.stop = true;
  await Promise.all(workers);

  const found = await checkPlaces(migrator);
  const sorted = [...tally.latencies].sort((a, b) => a - b);
  return {
    rows: options.rows,
    applied,
    migrationMs,
    backfills,
    calls: tally.calls,
    callsDuringMigration: tally.during,
    failed: tally.failed,
    failures: tally.failures,
    retried: tally.retried,
    callP50Ms: quantile(sorted, 0.5),
    callP99Ms: quantile(sorted, 0.99),
    callMaxMs: sorted.at(-1) ?? 0,
    inserted: tally.inserted,
    deleted: tally.deleted,
    lost: options.rows + tally.inserted - tally.deleted - found.total,
    unplaced: found.unplaced,
    // Ended after the last batch started: it may have committed after that batch's snapshot.
    inFlightAtBackfillEnd: tally.originWrites.filter((at) => at >= state.finalBatchAt).length,
    misplaced: found.misplaced,
    placeClashes: found.placeClashes,
    partitionMismatches: found.partitionMismatches,
  };
}

/** The figures as lines: what the command prints and docs/benchmarks.md quotes. */
export function liveMigrationReport(f: LiveMigrationFigures): string[] {
  const slowest = Math.max(0, ...f.backfills.map((b) => b.longestBatchMs));
  const median = f.backfills.map((b) => b.medianBatchMs).sort((a, b) => a - b)[0] ?? 0;
  return [
    `${f.rows.toLocaleString('en')} memories; applied ${f.applied.length} migrations in ${(f.migrationMs / 1000).toFixed(1)} s`,
    ...f.backfills.map(
      (b) =>
        `  ${b.file} backfill ${b.step}: ${b.rows.toLocaleString('en')} rows in ${b.batches} batches, median batch ${Math.round(b.medianBatchMs)} ms, slowest ${Math.round(b.longestBatchMs)} ms`,
    ),
    `traffic: ${f.calls} calls (${f.callsDuringMigration} while migrating), ${f.failed} failed${
      f.failed > 0
        ? ` (${Object.entries(f.failures)
            .map(([why, n]) => `${why} ×${n}`)
            .join(', ')})`
        : ''
    }, ${f.retried} retried; ${f.inserted} written, ${f.deleted} deleted`,
    `call latency p50 ${f.callP50Ms.toFixed(1)} ms, p99 ${f.callP99Ms.toFixed(1)} ms, max ${f.callMaxMs.toFixed(1)} ms; max call / slowest batch ${(f.callMaxMs / Math.max(1, slowest)).toFixed(2)}, max call / median batch ${(f.callMaxMs / Math.max(1, median)).toFixed(2)}`,
    `checks: lost ${f.lost}, without a place ${f.unplaced} (older code's writes under way when the backfill ended: ${f.inFlightAtBackfillEnd}), placed unlike the single statement ${f.misplaced}, place clashes ${f.placeClashes}, partition counts wrong ${f.partitionMismatches}`,
  ];
}
