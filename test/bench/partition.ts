// `npm run bench:partition -- [--sizes 500,5000] [--queries 200] [--engine pglite|postgres] [--url URL]`
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../../lambda/adapters/local/judge.js';
import { migrate } from '../../lambda/adapters/pg/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import type { CurationRules, Principal } from '../../lambda/memory/model.js';
import type { RecallRanking } from '../../lambda/memory/ranking.js';
import { MemoryService } from '../../lambda/memory/service.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { parseFlags } from '../support/jest-run.js';
import { startPostgres } from '../support/pg-server.js';
import { loadLocomo } from './locomo-data.js';

/**
 * Recall cost as one partition grows: one user with N memories of one kind (LoCoMo turns, all ten
 * conversations, read at run time, each with its session as origin), recalled with LoCoMo questions through the memory service
 * (embedding + the one SQL statement), hybrid and vector-only interleaved query by query so that
 * the machine's noise falls on both alike. Prints medians and the two ratios the budget states:
 * hybrid / vector-only at each size, and p50 at the largest size / p50 at the smallest.
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

async function measure(sql: SqlClient, size: number): Promise<{ hybrid: number; vector: number; lexical: number }> {
  const store = new SqlMemoryStore(sql);
  const embedder = new LocalEmbedder(DIMENSIONS);
  const service = (ranking: RecallRanking) =>
    new MemoryService({ store, embedder, judge: new ExactOnlyJudge(), clock: systemClock, rules: RULES, ranking });
  const writer = service('hybrid');
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
  if (sql.engine === 'postgres') await sql.exec('ANALYZE');
  const arms: RecallRanking[] = ['hybrid', 'vector'];
  const services = Object.fromEntries(arms.map((r) => [r, service(r)])) as Record<RecallRanking, MemoryService>;
  const times: Record<string, number[]> = { hybrid: [], vector: [] };
  for (const [i, query] of [...questions.slice(0, 20), ...questions].entries()) {
    for (const ranking of i % 2 === 0 ? arms : [...arms].reverse()) {
      const t = performance.now();
      await services[ranking].search(principal, { query, kinds: ['event'], limit: 10 });
      if (i >= 20) times[ranking]?.push(performance.now() - t);
    }
  }
  return { hybrid: median(times.hybrid ?? []), vector: median(times.vector ?? []), lexical: NaN };
}

const engine = await openEngine();
await migrate(engine.sql, { embeddingDimensions: DIMENSIONS });
console.log(`bench:partition  ${engine.label}  ${QUERIES} LoCoMo questions per arm, medians (ms), recall read only (search)`);
const results: { size: number; hybrid: number; vector: number }[] = [];
for (const size of SIZES) {
  await engine.sql.exec('TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, journal');
  const r = await measure(engine.sql, size);
  results.push({ size, hybrid: r.hybrid, vector: r.vector });
  console.log(
    `  ${String(size).padStart(6)} memories in one partition: hybrid ${r.hybrid.toFixed(2)}  vector-only ${r.vector.toFixed(2)}  hybrid/vector ${(r.hybrid / r.vector).toFixed(2)}`,
  );
}
const first = results[0];
const last = results.at(-1);
if (first && last && last !== first) {
  console.log(
    `  p50 at ${last.size} / p50 at ${first.size}: hybrid ${(last.hybrid / first.hybrid).toFixed(2)}, vector-only ${(last.vector / first.vector).toFixed(2)}`,
  );
}
await engine.stop();
