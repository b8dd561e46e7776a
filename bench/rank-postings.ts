// `npm run bench:rank-postings -- [--size 50000] [--engine pglite|postgres] [--url URL]`
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { RANK_POSTINGS } from '../lambda/adapters/pg/statements/maintenance/rank-postings.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { Sweeper } from '../lambda/memory/maintenance/sweeper.js';
import { systemClock } from '../lambda/ports/clock.js';
import { parseFlags } from '../test/support/jest-run.js';
import { BENCH_RULES, locomoTexts, loadTurns, openBenchEngine } from './probe.js';

/**
 * The sweeper's posting ranking (decision 0101) right after a bulk load, before any statistics
 * refresh: one user's `event` partition of `--size` LoCoMo turns, every term of it stale, then the
 * sweep. Each `maintenance/rank-postings` statement is timed, and the slowest one's plan is printed
 * from `EXPLAIN (ANALYZE, BUFFERS)` of the statement as sent, run again on PGlite in a transaction
 * rolled back (elsewhere without ANALYZE: the ranking already happened). The figures of decision
 * 0121: how many rankings took over 200 ms, and what the slowest one read.
 */

const USAGE = `usage: npm run bench:rank-postings -- [--size 50000] [--engine pglite|postgres] [--url URL]`;
const parsed = parseFlags(process.argv.slice(2), ['size', 'engine', 'url']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const SIZE = Number(flags.size ?? 50_000);
if (!(Number.isInteger(SIZE) && SIZE >= 1)) {
  console.error(`--size takes a positive whole number\n\n${USAGE}`);
  process.exit(2);
}
const DIMENSIONS = 256;
const REGION = 'eu-central-1';
const LOAD_BATCH = 100;
const BUDGET_MS = 200;

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

/** Passes every statement on, timing the rankings and keeping the slowest one as sent. */
class RankingTimes implements SqlClient {
  readonly engine: SqlClient['engine'];
  readonly ms: number[] = [];
  slowest: { ms: number; query?: Query } = { ms: 0 };

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  async query<R>(query: Query): Promise<R[]> {
    if ((query as { statement?: { name: string } }).statement?.name !== RANK_POSTINGS.name) return this.inner.query<R>(query);
    const t = performance.now();
    const rows = await this.inner.query<R>(query);
    const ms = performance.now() - t;
    this.ms.push(ms);
    if (ms > this.slowest.ms) this.slowest = { ms, query };
    return rows;
  }

  read<R>(query: Query): Promise<R[]> {
    return this.query<R>(query);
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  async close(): Promise<void> {}
}

/** The plan of `query`: executed and rolled back on PGlite, estimated only elsewhere. */
async function planOf(sql: SqlClient, query: Query): Promise<string> {
  const line = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => r['QUERY PLAN']).join('\n');
  if (!(sql instanceof PgliteSqlClient)) {
    return line(await sql.query<{ 'QUERY PLAN': string }>({ ...query, text: `EXPLAIN ${query.text}` }));
  }
  let plan = '';
  await sql.db.transaction(async (tx) => {
    plan = line((await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, [...query.values])).rows);
    await tx.rollback();
  });
  return plan;
}

const { sql, label, stop } = await openBenchEngine(flags);
try {
  progress(`${label}: one partition of ${SIZE} memories`);
  await migrate(sql, { embeddingDimensions: DIMENSIONS });
  const stores = sqlMemoryStores(sql);
  const embedder = new LocalEmbedder(DIMENSIONS);
  const analyzer = new LexicalAnalyzer();
  const { turns } = locomoTexts();
  const userId = randomUUID();
  await loadTurns(stores, { region: REGION, userId }, turns, SIZE, { embedder, analyzer, batch: LOAD_BATCH, progress });
  const times = new RankingTimes(sql);
  const sweeper = new Sweeper(sqlMemoryStores(times).maintenance, BENCH_RULES, systemClock, analyzer);
  while ((await sweeper.run(REGION, { batchSize: 500, maxBatches: 1000 })).incomplete) progress('sweep: more to do');
  const ms = [...times.ms].sort((a, b) => a - b);
  const at = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN).toFixed(1);
  console.log(`\nnpm run bench:rank-postings -- --size ${SIZE}${flags.engine ? ` --engine ${flags.engine}` : ''}`);
  console.log(`  ${label}; one partition of ${SIZE} memories, ranked by the sweep right after the bulk load`);
  console.log(
    `  ${ms.length} rankings: p50 ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)} ms, ${ms.filter((m) => m > BUDGET_MS).length} over ${BUDGET_MS} ms`,
  );
  const { query } = times.slowest;
  if (query) {
    console.log(`  the slowest ranking's plan, run again (term ${JSON.stringify(query.values[3])}):`);
    console.log((await planOf(sql, query)).replace(/^/gm, '    '));
  }
} finally {
  await stop();
}
