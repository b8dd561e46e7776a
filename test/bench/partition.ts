// `npm run bench:partition -- [--sizes 500,5000] [--queries 200] [--engine pglite|postgres] [--url URL]`
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../../lambda/adapters/local/judge.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import type { CurationRules, Principal } from '../../lambda/memory/model.js';
import { FUSION, LEXICAL, type RecallRanking } from '../../lambda/memory/policy/ranking.js';
import type { PageService } from '../../lambda/memory/page/page-service.js';
import { memoryServices } from '../../lambda/memory/services.js';
import { Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { parseFlags } from '../support/jest-run.js';
import { startPostgres } from '../support/pg-server.js';
import { loadLocomo } from './locomo-data.js';

/**
 * Recall cost as one partition grows: one user per size, each with N memories of one kind (LoCoMo
 * turns, all ten conversations, read at run time, each with its session as origin), in one
 * database, recalled with LoCoMo questions through the memory service (embedding + the one SQL
 * statement), sizes and arms interleaved query by query so that the machine's noise falls on all
 * alike. Before recalling, the sweep runs once, as the server's
 * timer would: on PostgreSQL and PGlite a partition past VECTOR_CELLS.from gets its vector cells
 * (decision 0083), and hybrid reading every cell is timed too, the exact arm those engines had
 * before. Prints medians and the two ratios the budget states: hybrid / vector-only at each size,
 * and p50 at the largest size / p50 at the smallest.
 */

const USAGE = `usage: npm run bench:partition -- [--sizes 500,5000] [--queries 200] [--engine pglite|postgres] [--url URL]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster on loopback; --url uses an
existing PostgreSQL-wire database instead (a scratch one: the bench empties its naaba tables).`;

const parsed = parseFlags(process.argv.slice(2), ['sizes', 'queries', 'engine', 'url']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const SIZES = (flags.sizes ?? '500,5000').split(',').map(Number);
const QUERIES = Number(flags.queries ?? 200);
const DIMENSIONS = 256;
const RULES: CurationRules = {
  kinds: { event: { ceiling: 100_000, ttlSeconds: null, dedup: false } },
  pinLimit: 50,
  journalRetentionSeconds: 86_400,
};

const conversations = [...loadLocomo('../shared/data', 'dev'), ...loadLocomo('../shared/data', 'heldout')];
/** Every turn with its session as origin, as bench:locomo stores them, so that recall's following read finds its rows. */
const turns = conversations.flatMap((c) => c.turns.map((t) => ({ content: t.content, origin: `${c.id} ${t.id.split(':')[0]}` })));
const questions = conversations.flatMap((c) => c.questions.map((q) => q.text)).slice(0, QUERIES);

async function openEngine(): Promise<{ sql: SqlClient; label: string; stop: () => Promise<void> }> {
  if (flags.url) {
    const sql = await PgSqlClient.connect({ url: flags.url, maxConnections: 2, statementTimeoutMs: 60_000 });
    return { sql, label: `${sql.engine} at a URL`, stop: () => sql.close() };
  }
  if (flags.engine === 'postgres') {
    const server = await startPostgres();
    const sql = await PgSqlClient.connect({ url: server.url, maxConnections: 2, statementTimeoutMs: 60_000 });
    return {
      sql,
      label: `PostgreSQL ${server.version}`,
      stop: async () => {
        await sql.close();
        await server.stop();
      },
    };
  }
  const sql = await PgliteSqlClient.open();
  return { sql, label: 'PGlite in-process', stop: () => sql.close() };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

type Arm = 'hybrid' | 'vector' | 'exact';

/** One user per size, in one database: each user's `event` partition holds that many LoCoMo turns. */
async function load(stores: MemoryStores, sizes: readonly number[]): Promise<Principal[]> {
  const writer = memoryServices({
    stores,
    embedder: new LocalEmbedder(DIMENSIONS),
    judge: new ExactOnlyJudge(),
    clock: systemClock,
    rules: RULES,
  }).curation;
  const users: Principal[] = [];
  for (const size of sizes) {
    const principal: Principal = { userId: randomUUID(), region: 'eu-central-1', agent: 'bench', keyId: randomUUID() };
    const started = Date.now();
    for (let i = 0; i < size; i += 1) {
      const { content, origin } = turns[i % turns.length] ?? { content: '', origin: '' };
      await writer.remember(
        principal,
        { name: 'bench', version: '1' },
        { content: i < turns.length ? content : `${content} (${i})`, kind: 'event', origin },
      );
      if ((i + 1) % 1000 === 0)
        process.stderr.write(`  ${i + 1} of ${size} memories stored (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
    users.push(principal);
  }
  return users;
}

/**
 * Medians per size of hybrid recall, the vector arm alone, and hybrid reading every cell of the
 * partition (the exact vector arm, what PostgreSQL and PGlite did before cells). Every question is
 * asked of every size and arm in turn, the order rotating, so that the machine's drift over the
 * run falls on all alike.
 */
async function measure(sql: SqlClient): Promise<Record<Arm, number>[]> {
  const stores = sqlMemoryStores(sql);
  const users = await load(stores, SIZES);
  // The sweep the server runs on a timer: a partition past VECTOR_CELLS.from gets its cells (decision 0083).
  const swept = await new Sweeper(stores.maintenance, RULES, systemClock).run('eu-central-1', { batchSize: 500, maxBatches: 10 });
  process.stderr.write(`  the sweep built the vector cells of ${swept.cells.built} partitions\n`);
  // As a running server's tables are: vacuumed and analysed (PGlite's statistics timer, PostgreSQL's autovacuum).
  if (sql.engine === 'postgres') await sql.exec('VACUUM ANALYZE');
  const service = (ranking: RecallRanking, cellsProbed = FUSION.cellsProbed) =>
    memoryServices({
      stores,
      embedder: new LocalEmbedder(DIMENSIONS),
      judge: new ExactOnlyJudge(),
      clock: systemClock,
      rules: RULES,
      ranking,
      scoring: { fusion: { ...FUSION, cellsProbed }, lexical: LEXICAL },
    }).page;
  const arms: Record<Arm, PageService> = { hybrid: service('hybrid'), vector: service('vector'), exact: service('hybrid', 1) };
  const runs = users.flatMap((principal, size) => (Object.keys(arms) as Arm[]).map((arm) => ({ principal, size, arm })));
  const times = SIZES.map(() => ({ hybrid: [] as number[], vector: [] as number[], exact: [] as number[] }));
  for (const [i, query] of [...questions.slice(0, 20), ...questions].entries()) {
    for (let j = 0; j < runs.length; j += 1) {
      const run = runs[(i + j) % runs.length];
      if (!run) continue;
      const t = performance.now();
      await arms[run.arm].search(run.principal, { query, kinds: ['event'], limit: 10 });
      if (i >= 20) times[run.size]?.[run.arm].push(performance.now() - t);
    }
  }
  return times.map((t) => ({ hybrid: median(t.hybrid), vector: median(t.vector), exact: median(t.exact) }));
}

const engine = await openEngine();
await migrate(engine.sql, { embeddingDimensions: DIMENSIONS });
console.log(`bench:partition  ${engine.label}  ${QUERIES} LoCoMo questions per arm, medians (ms), recall read only (search)`);
await engine.sql.exec(
  'TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, memory_cells, journal',
);
const results = (await measure(engine.sql)).map((r, i) => ({ size: SIZES[i] ?? 0, ...r }));
for (const r of results) {
  console.log(
    `  ${String(r.size).padStart(6)} memories in one partition: hybrid ${r.hybrid.toFixed(2)}  vector-only ${r.vector.toFixed(2)}  hybrid/vector ${(r.hybrid / r.vector).toFixed(2)}  hybrid reading every cell ${r.exact.toFixed(2)}`,
  );
}
const first = results[0];
const last = results.at(-1);
if (first && last && last !== first) {
  console.log(
    `  p50 at ${last.size} / p50 at ${first.size}: hybrid ${(last.hybrid / first.hybrid).toFixed(2)}, vector-only ${(last.vector / first.vector).toFixed(2)}, hybrid reading every cell ${(last.exact / first.exact).toFixed(2)}`,
  );
}
await engine.stop();
