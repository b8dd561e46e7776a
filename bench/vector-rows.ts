// `npm run bench:vector-rows -- [--engine pglite|postgres] [--url URL] [--queries 200]`
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../lambda/adapters/pg/pg-client.js';
import { type Param, params, type SqlFragment, sql as sqlText } from '../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { toVectorLiteral } from '../lambda/adapters/pg/vector.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { parseFlags } from '../test/support/jest-run.js';
import { startPostgres } from '../test/support/pg-server.js';
import { loadable } from './loadable.js';
import { loadLocomo } from './locomo-data.js';
import { openScratchPglite } from './probe.js';

/**
 * What the exact vector arm pays per row on PostgreSQL and PGlite, and what cheaper rows would
 * buy (issue 19's "recall p50 at 5,000 ≤ 2× at 500"). Two users, 500 and 5,000 memories of one
 * kind (LoCoMo turns, bulk loaded through the store), and the arm's read of their 50 nearest
 * timed as it is and in other layouts, query by query, sizes interleaved: the same read without
 * any distance (what reading the rows costs), by inner product instead of cosine, over a narrow
 * side table of full or half-precision vectors, and a binary-quantized first pass reranked
 * exactly (with the share of the exact 50 and 10 it keeps). Prints medians (ms) and the ratio
 * 5,000 / 500 for each. Side tables are built for the measurement and dropped after it.
 */

const USAGE = `usage: npm run bench:vector-rows -- [--engine pglite|postgres] [--url URL] [--queries 200]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster; --url uses an existing
scratch database (the bench empties its naaba tables).`;
const parsed = parseFlags(process.argv.slice(2), ['engine', 'url', 'queries']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const QUERIES = Number(flags.queries ?? 200);
const DIMENSIONS = 256;
const SIZES = [500, 5000] as const;
/** One user's `event` partition, by its key. */
const key = (p: ReadParams) => sqlText`(region, user_id, kind) IN (('eu-central-1', ${p.user}::uuid, 'event'))`;

async function open(): Promise<{ sql: SqlClient; label: string; stop: () => Promise<void> }> {
  if (flags.url) {
    const sql = await PgSqlClient.connect({ url: flags.url, maxConnections: 1, statementTimeoutMs: 60_000 });
    return { sql, label: 'a URL', stop: () => sql.close() };
  }
  if (flags.engine === 'postgres') {
    const server = await startPostgres();
    const sql = await PgSqlClient.connect({ url: server.url, maxConnections: 1, statementTimeoutMs: 60_000 });
    const stop = async () => {
      await sql.close();
      await server.stop();
    };
    return { sql, label: `PostgreSQL ${server.version}`, stop };
  }
  return { ...(await openScratchPglite()), label: 'PGlite in-process, in a data folder' };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** The parameters of every read: the user and the query's vector. */
interface ReadParams {
  readonly user: Param<string | undefined>;
  readonly vector: Param<string>;
}

/** The layouts measured: each a read of one user's 50 nearest. */
const READS: Record<string, (p: ReadParams) => SqlFragment> = {
  'exact cosine (the arm as it is)': (
    p,
  ) => sqlText`SELECT id, kind, pinned, last_useful_at, embedding <=> ${p.vector}::vector AS distance
      FROM memories WHERE ${key(p)} ORDER BY embedding <=> ${p.vector}::vector LIMIT 50`,
  'the same rows, no distance': (p) => sqlText`SELECT id, kind, pinned, last_useful_at, length(${p.vector}::text) AS distance
      FROM memories WHERE ${key(p)} ORDER BY created_at LIMIT 50`,
  'inner product instead of cosine': (
    p,
  ) => sqlText`SELECT id, kind, pinned, last_useful_at, 1 + (embedding <#> ${p.vector}::vector) AS distance
      FROM memories WHERE ${key(p)} ORDER BY embedding <#> ${p.vector}::vector LIMIT 50`,
  'narrow side table, full vectors': (p) => sqlText`SELECT id, embedding <=> ${p.vector}::vector AS distance
      FROM bench_vectors WHERE ${key(p)} ORDER BY embedding <=> ${p.vector}::vector LIMIT 50`,
  'narrow side table, half precision': (p) => sqlText`SELECT id, half <=> ${p.vector}::halfvec AS distance
      FROM bench_vectors WHERE ${key(p)} ORDER BY half <=> ${p.vector}::halfvec LIMIT 50`,
  'binary first pass (200), exact rerank': (p) => sqlText`WITH first AS (
        SELECT id FROM bench_vectors WHERE ${key(p)} ORDER BY bits <~> binary_quantize(${p.vector}::vector) LIMIT 200)
      SELECT m.id, m.embedding <=> ${p.vector}::vector AS distance
        FROM first JOIN memories AS m ON m.region = 'eu-central-1' AND m.id = first.id ORDER BY 2 LIMIT 50`,
};

const engine = await open();
const { sql } = engine;
await migrate(sql, { embeddingDimensions: DIMENSIONS });
await sql.exec('TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, memory_cells, journal');
const conversations = [...loadLocomo('../shared/data', 'dev'), ...loadLocomo('../shared/data', 'heldout')];
const turns = conversations.flatMap((c) => c.turns.map((t) => t.content));
const embedder = new LocalEmbedder(DIMENSIONS);
const analyzer = new LexicalAnalyzer();
const store = sqlMemoryStores(sql).transfer;
const users = new Map<number, string>();
for (const size of SIZES) {
  const userId = randomUUID();
  users.set(size, userId);
  for (let start = 0; start < size; start += 500) {
    const memories = [];
    for (let i = start; i < start + 500; i += 1)
      memories.push(await loadable(`${turns[i % turns.length]} (${size}-${i})`, embedder, analyzer));
    const scope = { region: 'eu-central-1', userId };
    await store.load({ scope, kind: 'event', expires: false, at: new Date(), agent: 'bench', client: 'bench/1', memories });
  }
  process.stderr.write(`  loaded ${size} memories\n`);
}
await sql.exec(`DROP TABLE IF EXISTS bench_vectors`);
await sql.exec(`CREATE TABLE bench_vectors AS
  SELECT region, user_id, kind, id, embedding, embedding::halfvec(${DIMENSIONS}) AS half,
         binary_quantize(embedding)::bit(${DIMENSIONS}) AS bits FROM memories`);
await sql.exec('CREATE INDEX bench_vectors_key ON bench_vectors (region, user_id, kind)');
if (sql.engine === 'postgres') await sql.exec('VACUUM ANALYZE');
const questions = conversations.flatMap((c) => c.questions.map((q) => q.text)).slice(0, QUERIES);
const vectors = await Promise.all(questions.map(async (q) => toVectorLiteral(await embedder.embed(q))));

console.log(`bench:vector-rows  ${engine.label}  ${vectors.length} LoCoMo questions, 50 nearest of one user, medians (ms)`);
console.log('\n| read | 500 | 5,000 | 5,000 / 500 |\n| --- | ---: | ---: | ---: |');
for (const [name, text] of Object.entries(READS)) {
  const times = new Map<number, number[]>(SIZES.map((s) => [s, []]));
  for (let round = 0; round < 2; round += 1) {
    for (const [i, vector] of vectors.entries()) {
      for (const size of i % 2 === 0 ? SIZES : [...SIZES].reverse()) {
        const started = performance.now();
        await sql.query(text(params({ user: users.get(size), vector })));
        // The first round warms caches and plans; only the second is kept.
        if (round === 1) times.get(size)?.push(performance.now() - started);
      }
    }
  }
  const [small, large] = SIZES.map((s) => median(times.get(s) ?? []));
  console.log(`| ${name} | ${small?.toFixed(2)} | ${large?.toFixed(2)} | ${((large ?? 0) / (small ?? 1)).toFixed(2)} |`);
}
let kept50 = 0;
let kept10 = 0;
for (const vector of vectors) {
  const inputs = params({ user: users.get(5000), vector });
  const read = (name: string) => {
    const text = READS[name];
    if (!text) throw new Error(`no read named ${name}`);
    return sql.query<{ id: string }>(text(inputs));
  };
  const exact = (await read('exact cosine (the arm as it is)')).map((r) => r.id);
  const first = new Set((await read('binary first pass (200), exact rerank')).map((r) => r.id));
  kept50 += exact.filter((id) => first.has(id)).length / Math.max(exact.length, 1);
  kept10 += exact.slice(0, 10).filter((id) => first.has(id)).length / Math.max(Math.min(exact.length, 10), 1);
}
const share = (n: number) => `${((100 * n) / vectors.length).toFixed(1)} %`;
console.log(`\nbinary first pass at 5,000: keeps ${share(kept50)} of the exact 50 nearest, ${share(kept10)} of the exact 10`);
await sql.exec('DROP TABLE bench_vectors');
await engine.stop();
