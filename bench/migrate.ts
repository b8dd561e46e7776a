// `npm run bench:migrate -- [--url URL] [--rows 200000] [--batch 5000] [--writers 4] [--readers 4] [--regions A,B] [--rank-seconds 30]`
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgSqlClient } from '../lambda/adapters/pg/pg-client.js';
import { withRetry } from '../lambda/adapters/pg/retry.js';
import {
  ContractPendingError,
  type DatabaseRegions,
  MIGRATION_FILE,
  migrate,
  splitStatements,
} from '../lambda/adapters/pg/schema/migrate.js';
import { asRead, type Query, type SqlClient, type SqlEngine } from '../lambda/adapters/pg/sql-client.js';
import { sql } from '../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { environment } from '../lambda/config/env.js';
import { parseFlags } from '../test/support/jest-run.js';
import { startPostgres } from '../test/support/pg-server.js';
import { redact } from '../test/store/url-harness.js';
import { type Call, callOf, consistency, KINDS, loadGroup, MEMORIES_PER_USER, userGroups } from './migrate-traffic.js';

/**
 * Migrations under test on a populated, multi-region database while older code calls it (decision
 * 0117): the key change that stores a user's memories together (CockroachDB 0011, PostgreSQL 0013)
 * and the lexical cut (CockroachDB 0014, PostgreSQL 0016), and every later expansion. The database
 * is migrated to the file before them, loaded a group of users per statement in every region it
 * has, then migrated the rest of the way while writers and readers call it with statements of
 * that older schema; then the new code's sweeper ranks the postings the cut left unranked (what
 * follows a deploy), in its batches. Prints each migration statement's duration, call latencies
 * (p50, p99, the slowest, against the slowest statement), failures, and checks that nothing was
 * lost and every kept count matches the rows.
 */

const FIRST: Record<SqlEngine, string> = { cockroach: '0011_memories_by_user.sql', postgres: '0013_memories_by_user.sql' };
const PG_REGIONS = ['eu-central-1', 'us-east-1'];
const DIMENSIONS = 4;

const USAGE = `usage: npm run bench:migrate -- [--url URL] [--rows 200000] [--batch 5000] [--writers 4] [--readers 4]
                               [--regions PRIMARY,OTHER…] [--rank-seconds 30]

Migrations ${FIRST.cockroach} and 0014_term_cut.sql (CockroachDB; PostgreSQL's twins ${FIRST.postgres} and
0016_term_cut.sql) and every later expansion, applied to a populated multi-region database while
older code calls it. --rows memories (${MEMORIES_PER_USER} per user, users spread over the database's
regions) are loaded a group of users per statement, --writers remember and forget and --readers
recall with statements of the schema before those files, then the sweeper ranks the postings the
cut left unranked for --rank-seconds. Exit status 1 when a call failed or a count is wrong.
--url      an empty scratch database: a CockroachDB v25.4+ cluster (what production runs; the
           database is made multi-region with --regions or NAABA_DB_REGIONS) or PostgreSQL 15+
           with pgvector. Without it, a throwaway PostgreSQL started here on loopback.
--batch    rows per load statement and per backfill batch (default 5000)`;

const parsed = parseFlags(process.argv.slice(2), ['url', 'rows', 'batch', 'writers', 'readers', 'regions', 'rank-seconds']);
const whole = (value: string | undefined, fallback: number) =>
  value === undefined ? fallback : /^\d+$/.test(value) ? Number(value) : Number.NaN;
const flags = typeof parsed === 'string' ? undefined : parsed;
const n = {
  rows: whole(flags?.rows, 200_000),
  batch: whole(flags?.batch, 5_000),
  writers: whole(flags?.writers, 4),
  readers: whole(flags?.readers, 4),
  rankSeconds: whole(flags?.['rank-seconds'], 30),
};
if (!flags || !Object.values(n).every((x) => Number.isInteger(x) && x >= 0) || n.rows < MEMORIES_PER_USER || n.batch < 1) {
  console.error(
    `${typeof parsed === 'string' ? parsed : `--rows (at least ${MEMORIES_PER_USER}), --batch, --writers, --readers and --rank-seconds take whole numbers`}\n\n${USAGE}`,
  );
  process.exit(2);
}

const started = performance.now();
const say = (line: string) => console.error(`  [${((performance.now() - started) / 1000).toFixed(0)} s] ${line}`);
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** The migrator's client, every statement timed by its first words. */
class TimedClient implements SqlClient {
  readonly engine: SqlEngine;
  readonly statements: { what: string; ms: number }[] = [];
  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }
  private async timed<T>(what: string, work: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await work();
    } finally {
      const ms = performance.now() - t;
      this.statements.push({ what, ms });
      if (ms > 1_000) say(`  migration statement ${(ms / 1000).toFixed(1)} s: ${what}`);
    }
  }
  query<R>(query: Query): Promise<R[]> {
    return this.timed(firstWords(query.text), () => this.inner.query<R>(query));
  }
  exec(script: string): Promise<void> {
    return this.timed(firstWords(script), () => this.inner.exec(script));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A statement's first line of code (comments skipped), as the report names it; a phase sent as one transaction says so. */
function firstWords(text: string): string {
  const code = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('--'));
  const first = (code.find((l) => l !== 'BEGIN;') ?? '').slice(0, 90);
  if (code[0] !== 'BEGIN;') return first;
  const statements = splitStatements(text).filter((st) => !/^\s*(BEGIN|COMMIT)\s*;?\s*$/i.test(st)).length;
  return `${first} … (one transaction, ${statements} statement${statements === 1 ? '' : 's'})`;
}

async function migrateBefore(db: SqlClient, first: string, regions: DatabaseRegions | undefined): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-bench-migrate-'));
  try {
    const root = new URL('../sql/', import.meta.url);
    const engineDir = new URL(`${db.engine}/`, root);
    for (const file of readdirSync(engineDir).filter((f) => MIGRATION_FILE.test(f) && f < first)) {
      cpSync(new URL(file, engineDir), join(folder, db.engine, file));
    }
    await migrate(db, { embeddingDimensions: DIMENSIONS, source: pathToFileURL(`${folder}/`), regions });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface Tally {
  calls: number;
  during: number;
  failed: number;
  errors: Map<string, number>;
  retried: number;
  inserted: number;
  deleted: number;
  latencies: number[];
  duringLatencies: number[];
}

async function work(
  db: SqlClient,
  role: 'writer' | 'reader',
  users: number,
  regions: readonly string[],
  tally: Tally,
  state: { stop: boolean; migrating: boolean },
) {
  for (let i = 0; !state.stop; i += 1) {
    const user = Math.floor(Math.random() * users);
    const region = regions[user % regions.length] ?? '';
    const kind = KINDS[i % 2] ?? 'fact';
    const pick = Math.random();
    const call: Call = role === 'writer' ? (pick < 0.6 ? 'remember' : 'forget') : pick < 0.7 ? 'recall' : 'postings';
    const query = callOf(call, region, user, kind, tally.calls * 1_000 + i);
    const t = performance.now();
    let attempts = 0;
    try {
      const rows = await withRetry(() => {
        attempts += 1;
        return asRead<{ changed?: number }>(db, query);
      });
      if (call === 'remember' && rows.length > 0) tally.inserted += 1;
      if (call === 'forget' && rows.length > 0) tally.deleted += 1;
    } catch (error) {
      tally.failed += 1;
      const what = error instanceof Error ? `${call}: ${error.message.slice(0, 120)}` : call;
      tally.errors.set(what, (tally.errors.get(what) ?? 0) + 1);
    }
    const ms = performance.now() - t;
    tally.retried += attempts - 1;
    tally.latencies.push(ms);
    if (state.migrating) tally.duringLatencies.push(ms);
    tally.calls += 1;
    if (state.migrating) tally.during += 1;
  }
}

/** The new code's sweeper ranking what the cut left stale, batch by batch, for at most `seconds`. */
async function rank(db: SqlClient, regions: readonly string[], batch: number, seconds: number) {
  const maintenance = sqlMemoryStores(db).maintenance;
  const until = performance.now() + seconds * 1000;
  const batches: number[] = [];
  let terms = 0;
  for (const region of regions) {
    while (performance.now() < until) {
      const t = performance.now();
      const ranked = await maintenance.rankPostings(region, Math.min(batch, 100));
      batches.push(performance.now() - t);
      terms += ranked;
      if (ranked === 0) break;
    }
  }
  const [left] = await db.query<{ n: string }>(sql`SELECT count(*) AS n FROM memory_partition_terms WHERE stale`);
  return { batches, terms, left: Number(left?.n) };
}

const regionsWanted = ((): DatabaseRegions | undefined => {
  const [primary, ...others] = (flags.regions ?? environment().NAABA_DB_REGIONS ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return primary ? { primary, others } : undefined;
})();
if (!flags.url) {
  console.error(
    'bench:migrate: no --url, so this runs on a throwaway PostgreSQL started here. Production is CockroachDB: there, run\n' +
      "  npm run bench:migrate -- --url 'postgresql://USER@HOST:26257/naaba_migrate?sslmode=verify-full' --regions PRIMARY,OTHER --rows 1000000\n" +
      'against an empty scratch database of a multi-region cluster (docs/benchmarks.md, "Measured on the production engine").',
  );
}
const server = flags.url ? undefined : await startPostgres();
const url = flags.url ?? server?.url ?? '';
const migrator = await PgSqlClient.connect({
  url,
  maxConnections: 2,
  statementTimeoutMs: 3_600_000,
  connectionTimeoutMs: 30_000,
});
const traffic = await PgSqlClient.connect({
  url,
  maxConnections: n.writers + n.readers + 1,
  statementTimeoutMs: 60_000,
  connectionTimeoutMs: 30_000,
});
let failed = true;
try {
  const engine = migrator.engine;
  say(
    `${engine === 'cockroach' ? 'CockroachDB' : 'PostgreSQL'} at ${server ? `a throwaway cluster (${server.version})` : redact(url)}`,
  );
  const [taken] = await migrator.query<{ found: boolean }>(sql`SELECT to_regclass('naaba_migrations') IS NOT NULL AS found`);
  if (taken?.found) throw new Error('the database already has naaba tables: give an empty scratch database');
  const first = FIRST[engine];
  await migrateBefore(migrator, first, engine === 'cockroach' ? regionsWanted : undefined);
  const regions =
    engine === 'cockroach'
      ? (await migrator.query<{ region: string }>(sql`SELECT region FROM [SHOW REGIONS FROM DATABASE]`)).map((r) => r.region)
      : PG_REGIONS;
  const users = Math.max(1, Math.floor(n.rows / MEMORIES_PER_USER));
  say(
    `schema before ${first}; loading ${(users * MEMORIES_PER_USER).toLocaleString('en')} memories of ${users} users in ${regions.join(', ')}`,
  );
  let loaded = 0;
  let shown = performance.now();
  for (const group of userGroups(users, regions, n.batch)) {
    await loadGroup(migrator, group);
    loaded += group.users.length * MEMORIES_PER_USER;
    if (performance.now() - shown > 2_000) {
      say(`loaded ${loaded.toLocaleString('en')} memories`);
      shown = performance.now();
    }
  }
  if (engine === 'postgres') await migrator.exec('ANALYZE');

  const tally: Tally = {
    calls: 0,
    during: 0,
    failed: 0,
    errors: new Map(),
    retried: 0,
    inserted: 0,
    deleted: 0,
    latencies: [],
    duringLatencies: [],
  };
  const state = { stop: false, migrating: false };
  const workers = [
    ...Array.from({ length: n.writers }, () => work(traffic, 'writer', users, regions, tally, state)),
    ...Array.from({ length: n.readers }, () => work(traffic, 'reader', users, regions, tally, state)),
  ];
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  say(`traffic running (${tally.calls} calls so far); migrating from ${first}`);
  const timed = new TimedClient(migrator);
  const t = performance.now();
  state.migrating = true;
  let applied: string[] = [];
  try {
    applied = await migrate(timed, {
      embeddingDimensions: DIMENSIONS,
      batchRows: n.batch,
      stopBeforeContract: true,
      // The rewrite of CockroachDB 0011 on a populated table is what this bench measures (decision 0152).
      allowRewrite: true,
      regions: engine === 'cockroach' ? regionsWanted : undefined,
      progress: (p) =>
        say(`  ${p.file} backfill ${p.step}: ${p.rows} rows, ${p.batches} batches, slowest ${Math.round(p.longestBatchMs)} ms`),
    });
  } catch (error) {
    if (!(error instanceof ContractPendingError)) throw error;
    applied = [...error.applied];
  } finally {
    state.migrating = false;
  }
  const migrationMs = performance.now() - t;
  say(`applied ${applied.join(', ')} in ${(migrationMs / 1000).toFixed(1)} s; the sweeper ranks the postings left unranked`);
  const ranked = await rank(traffic, regions, n.batch, n.rankSeconds);
  state.stop = true;
  await Promise.all(workers);

  const found = await consistency(migrator, regions);
  const lost = users * MEMORIES_PER_USER + tally.inserted - tally.deleted - found.memories;
  const sorted = [...tally.latencies].sort((a, b) => a - b);
  const during = [...tally.duringLatencies].sort((a, b) => a - b);
  const slowest = [...timed.statements].sort((a, b) => b.ms - a.ms);
  const longest = slowest[0]?.ms ?? 0;
  const rankSorted = [...ranked.batches].sort((a, b) => a - b);
  const flags2 = `--rows ${n.rows} --batch ${n.batch} --writers ${n.writers} --readers ${n.readers}`;
  console.log(
    `\nnpm run bench:migrate -- ${flags2}  (${engine}, ${regions.length} regions, ${(users * MEMORIES_PER_USER).toLocaleString('en')} memories)`,
  );
  console.log(
    `applied ${applied.join(', ')} in ${(migrationMs / 1000).toFixed(1)} s, ${timed.statements.length} statements; the slowest:`,
  );
  for (const s of slowest.slice(0, 5)) console.log(`  ${s.ms.toFixed(0)} ms  ${s.what}`);
  console.log(
    `traffic: ${tally.calls} calls (${tally.during} while migrating), ${tally.failed} failed, ${tally.retried} retried; ${tally.inserted} remembered, ${tally.deleted} forgotten`,
  );
  for (const [what, count] of tally.errors) console.log(`  failed ${count}×: ${what}`);
  console.log(
    `call latency p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms, slowest ${(sorted.at(-1) ?? 0).toFixed(0)} ms; ` +
      `while migrating p50 ${quantile(during, 0.5).toFixed(1)} ms, p99 ${quantile(during, 0.99).toFixed(1)} ms, slowest ${(during.at(-1) ?? 0).toFixed(0)} ms = ${((during.at(-1) ?? 0) / Math.max(1, longest)).toFixed(2)} × the slowest migration statement`,
  );
  console.log(
    `ranking after the deploy: ${ranked.terms} terms in ${ranked.batches.length} batches, median ${quantile(rankSorted, 0.5).toFixed(0)} ms, slowest ${(rankSorted.at(-1) ?? 0).toFixed(0)} ms; ${ranked.left} terms left for later sweeps`,
  );
  console.log(
    `checks: lost ${lost}, partition counts wrong ${found.partitionsWrong}, term counts wrong ${found.termCountsWrong}, memories without their ${3} postings ${found.postingsWrong}`,
  );
  failed = tally.failed > 0 || lost !== 0 || found.partitionsWrong > 0 || found.termCountsWrong > 0 || found.postingsWrong > 0;
  console.log(failed ? 'FAILED: a check above is not met' : 'all checks met');
} finally {
  await traffic.close();
  await migrator.close();
  await server?.stop();
}
process.exit(failed ? 1 : 0);
