import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { PgSqlClient, sessionOptions, withSessionOptions } from '../lambda/adapters/pg/pg-client.js';
import { recordIndexedWith, schemaDimensions } from '../lambda/adapters/pg/schema/facts.js';
import { type DatabaseRegions, migrate, migrationFiles } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient, SqlEngine } from '../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { tlsConnection } from '../lambda/config/database-tls.js';
import { fingerprint } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { Sweeper } from '../lambda/memory/maintenance/sweeper.js';
import type { CurationRules, Principal } from '../lambda/memory/model.js';
import { FUSION, LEXICAL, type RecallRanking } from '../lambda/memory/policy/ranking.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';
import { openContentionBench, type RoundFigures, type Scenario } from '../test/pg/contention.js';
import { measureRoundTrips } from './round-trips-lib.js';
import { cosineDistance, seededRandom } from '../test/eval/distance-stats.js';

/**
 * `bench:engine`'s core: the figures our local benches give, measured on any PostgreSQL-wire
 * database a URL names (a CockroachDB cluster, or PostgreSQL + pgvector), in one run:
 * statements per tool call (and, on CockroachDB, the KV operations each sends), recall p50 at
 * each partition size with the sizes interleaved, busy and retry counts under concurrent writers,
 * and how many of the exact 10 nearest memories the engine's vector search returns.
 */

/** The region the bench's users live in: the contention rounds (test/pg/contention.ts) write there. */
export const BENCH_REGION = 'eu-central-1';
const DIMENSIONS = 256;
const KIND = 'event';
const RULES: CurationRules = {
  kinds: { event: { ceiling: 1_000_000, ttlSeconds: null, dedup: false } },
  pinLimit: 50,
  journalRetentionSeconds: 86_400,
};
const SCENARIOS: readonly Scenario[] = ['one-partition', 'many-users', 'restatements'];

export interface EngineBenchOptions {
  readonly url: string;
  /** Memories in the one partition recalled at each size. */
  readonly sizes: readonly number[];
  /** Timed recalls per size (after 10 untimed ones). */
  readonly queries: number;
  /** Queries whose vector search is compared with the exact 10 nearest, per size. */
  readonly overlapQueries: number;
  /** Contention rounds per scenario, each `writers` concurrent remembers. */
  readonly rounds: number;
  readonly writers: number;
  /** Write beside what a non-empty database holds (its rows are kept; the bench's own are left too). */
  readonly force: boolean;
  /** CockroachDB: the regions the database must have (migrate's NAABA_DB_REGIONS); else it must be multi-region already. */
  readonly regions?: DatabaseRegions;
  /** Where progress and results go, line by line, as they come. */
  readonly print: (line: string) => void;
}

/**
 * KV requests a call sent, from CockroachDB's session trace (`SHOW KV TRACE FOR SESSION`). The
 * DistSender logs every batch it sends to a range as `rN: sending batch 2 Put, 1 EndTxn to …`:
 * `writes` and `reads` add up those batches' requests (the vector index's own included), one per
 * range a request reaches; `ranges` counts the distinct ranges. `rowWrites` are the SQL layer's
 * own lines (`CPut`/`Put`/`Del` …, one per table or secondary-index entry it writes; the vector
 * index writes through its own store and is not among them), `fetched` its `fetched:` lines (rows
 * decoded).
 */
export type KvCounts = {
  readonly writes: number;
  readonly reads: number;
  readonly ranges: number;
  readonly rowWrites: number;
  readonly fetched: number;
};

export interface CallFigures {
  readonly call: string;
  readonly statements: number;
  readonly budget: number;
  readonly kv?: KvCounts;
}

export interface SizeFigures {
  readonly size: number;
  readonly recallP50: number;
  /** Share of the exact 10 nearest that the engine's vector search returned (0..1). */
  readonly overlap: number;
  /** PostgreSQL: the same with every cell read (the exact arm), a check on the client's arithmetic. */
  readonly overlapEveryCell?: number;
}

export interface EngineFigures {
  readonly engine: SqlEngine;
  readonly calls: readonly CallFigures[];
  /** Why no KV counts were taken, when none were. */
  readonly kvSkipped?: string;
  readonly sizes: readonly SizeFigures[];
  readonly contention: readonly RoundFigures[];
}

/** The database is not a scratch one, and `force` was not given: the message says what was found. */
export class NotScratchError extends Error {
  override readonly name = 'NotScratchError';
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const raw = (text: string, values: readonly unknown[] = []): Query => ({ text, values });

/** naaba's tables that describe the schema rather than hold anyone's data: a migrated database has rows there. */
const SCHEMA_TABLES = new Set(['naaba_migrations', 'naaba_settings']);

/** The tables naaba's migrations create on `engine`, and its migrations' own record. */
async function naabaTables(engine: SqlEngine): Promise<Set<string>> {
  const root = new URL('../sql/', import.meta.url);
  const names = new Set(['naaba_migrations']);
  for (const file of await migrationFiles(engine, root)) {
    const script = readFileSync(new URL(`${engine}/${file}`, root), 'utf8');
    for (const m of script.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gi))
      names.add((m[1] ?? '').toLowerCase());
  }
  return names;
}

/**
 * What the database holds before the bench writes: its tables, those not naaba's, and naaba's that
 * hold rows. Empty when both lists are empty (a new database, or one only migrated).
 */
async function scratchState(sql: SqlClient): Promise<{ foreign: string[]; filled: string[]; tables: string[] }> {
  const rows = await sql.query<{ name: string }>(
    raw(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
    ),
  );
  const ours = await naabaTables(sql.engine);
  const tables = rows.map((r) => r.name);
  const foreign = tables.filter((t) => !ours.has(t));
  const filled: string[] = [];
  const data = tables.filter((t) => ours.has(t) && !SCHEMA_TABLES.has(t));
  for (const table of data) {
    const [row] = await sql.query<{ filled: boolean }>(raw(`SELECT EXISTS (SELECT 1 FROM "${table}") AS filled`));
    if (row?.filled) filled.push(table);
  }
  return { foreign, filled, tables: data };
}

/** Text to store: sentences of this repository's own documentation, two per memory, seeded. */
function corpus(): string[] {
  const docs = new URL('../docs/', import.meta.url);
  const text = readdirSync(docs)
    .filter((f) => f.endsWith('.md'))
    .map((f) => readFileSync(new URL(f, docs), 'utf8'))
    .join('\n');
  const prose = text
    .split('\n')
    .filter((line) => /^[A-Za-z]/.test(line.trim()))
    .join(' ')
    .replace(/[`*_[\]()|#>]/g, ' ')
    .replace(/\s+/g, ' ');
  return prose.split(/(?<=[.!?])\s+/).filter((s) => s.length >= 40 && s.length <= 300);
}

/** `count` distinct memories (two documentation sentences each, numbered) and `asked` queries (a few words of a sentence). */
export function benchText(count: number, asked: number): { memories: string[]; queries: string[] } {
  const sentences = corpus();
  const next = seededRandom(32);
  const pick = () => sentences[Math.floor(next() * sentences.length)] ?? '';
  const memories = Array.from({ length: count }, (_, i) => `${pick()} ${pick()} (${i})`);
  const queries = Array.from({ length: asked }, () => {
    const words = pick().split(' ');
    const start = Math.floor(next() * Math.max(1, words.length - 6));
    return words.slice(start, start + 6).join(' ');
  });
  return { memories, queries };
}

/**
 * One connection that every statement goes through, so that CockroachDB's session trace
 * (`SET tracing = on,kv` … `SHOW KV TRACE FOR SESSION`) sees all of a call's KV requests; with
 * naaba's session settings. Transactions run on the same connection.
 */
class OneConnection implements SqlClient {
  private constructor(
    readonly engine: SqlEngine,
    private readonly client: pg.Client,
  ) {}

  static async open(url: string, engine: SqlEngine): Promise<OneConnection> {
    const tls = tlsConnection(url);
    const client = new pg.Client({ ...tls, ...withSessionOptions(tls.connectionString, sessionOptions(engine, 60_000)) });
    await client.connect();
    return new OneConnection(engine, client);
  }

  async query<R>(query: Query): Promise<R[]> {
    return (await this.client.query(query.text, [...query.values])).rows as R[];
  }

  read<R>(query: Query): Promise<R[]> {
    return this.query<R>(query);
  }

  ceiling<R>(query: Query): Promise<R[]> {
    return this.query<R>(query);
  }

  async transaction<T>(work: (session: SqlClient) => Promise<T>): Promise<T> {
    await this.client.query('BEGIN');
    try {
      const result = await work(this);
      await this.client.query('COMMIT');
      return result;
    } catch (error) {
      await this.client.query('ROLLBACK');
      throw error;
    }
  }

  async exec(script: string): Promise<void> {
    await this.client.query(script);
  }

  /**
   * The KV requests `run` sends, from the session trace (see {@link KvCounts}; message forms as in
   * cockroachdb/cockroach `pkg/sql/opt/exec/execbuilder/testdata/show_trace`), leaving out the
   * internal executor's own (lease and statistics lookups).
   */
  async traced(run: () => Promise<unknown>): Promise<KvCounts> {
    await this.client.query('SET tracing = on,kv');
    try {
      await run();
    } finally {
      await this.client.query('SET tracing = off');
    }
    const lines = (
      await this.client.query<{ message: string }>(
        "SELECT message FROM [SHOW KV TRACE FOR SESSION] WHERE tag NOT LIKE '%intExec=%'",
      )
    ).rows.map((r) => r.message.trim());
    return kvCounts(lines);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

const WRITE_REQUESTS = new Set([
  'Put',
  'CPut',
  'ConditionalPut',
  'InitPut',
  'Del',
  'Delete',
  'DelRange',
  'DeleteRange',
  'Inc',
  'Increment',
]);
const READ_REQUESTS = new Set(['Get', 'Scan', 'ReverseScan']);

/** {@link KvCounts} from the lines of a KV trace. */
export function kvCounts(lines: readonly string[]): KvCounts {
  let writes = 0;
  let reads = 0;
  const ranges = new Set<string>();
  for (const line of lines) {
    const batch = /\br(\d+): sending batch (.+?) to /.exec(line);
    if (!batch) continue;
    ranges.add(batch[1] ?? '');
    for (const part of (batch[2] ?? '').split(', ')) {
      const [n, method = ''] = part.trim().split(' ');
      if (WRITE_REQUESTS.has(method)) writes += Number(n);
      if (READ_REQUESTS.has(method)) reads += Number(n);
    }
  }
  const count = (pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;
  return {
    writes,
    reads,
    ranges: ranges.size,
    rowWrites: count(/^(CPut|Put|InitPut|Del|DelRange|Inc) /),
    fetched: count(/^fetched: /),
  };
}

/** Statements per tool call path, and on CockroachDB the KV requests each sends. */
async function countCalls(options: EngineBenchOptions, sql: SqlClient): Promise<Pick<EngineFigures, 'calls' | 'kvSkipped'>> {
  if (sql.engine !== 'cockroach') {
    const rows = await measureRoundTrips(sql, { region: BENCH_REGION });
    const kvSkipped = 'KV reads and writes per call are CockroachDB-only (its session trace); PostgreSQL has no KV layer';
    options.print(`  not counted: ${kvSkipped}`);
    return { calls: rows.map((r) => ({ call: r.call, statements: r.roundTrips, budget: r.budget })), kvSkipped };
  }
  const session = await OneConnection.open(options.url, sql.engine);
  try {
    const rows = await measureRoundTrips(session, { region: BENCH_REGION, observe: (run) => session.traced(run) });
    return {
      calls: rows.map((r) => ({
        call: r.call,
        statements: r.roundTrips,
        budget: r.budget,
        kv: r.observed as KvCounts | undefined,
      })),
    };
  } finally {
    await session.close();
  }
}

/** One user per size, its `event` partition filled in bulk (one load statement per 1,000 memories). */
async function fill(options: EngineBenchOptions, sql: SqlClient, texts: readonly string[]): Promise<Principal[]> {
  const stores = sqlMemoryStores(sql);
  const embedder = new LocalEmbedder(DIMENSIONS);
  const analyzer = new LexicalAnalyzer();
  const users: Principal[] = [];
  const started = Date.now();
  for (const size of options.sizes) {
    const principal: Principal = { userId: randomUUID(), region: BENCH_REGION, agent: 'bench', keyId: randomUUID() };
    for (let from = 0; from < size; from += 1000) {
      const memories: LoadPlan['memories'][number][] = [];
      for (let i = from; i < Math.min(size, from + 1000); i += 1) {
        const content = texts[i] ?? '';
        memories.push({
          id: randomUUID(),
          content,
          fingerprint: fingerprint(content),
          embedding: await embedder.embed(content),
          frequencies: analyzer.frequencies(content),
        });
      }
      await stores.transfer.load({
        scope: { region: principal.region, userId: principal.userId },
        kind: KIND,
        expires: false,
        at: new Date(),
        agent: 'bench',
        client: 'bench:engine/1',
        memories,
      });
      const done = Math.min(size, from + 1000);
      if (done % 10_000 === 0 || done === size)
        options.print(`  partition of ${size}: ${done} memories stored (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    users.push(principal);
  }
  return users;
}

/** The partition's vectors, read in pages by id: what the exact 10 nearest are computed from, in this process. */
async function vectorsOf(sql: SqlClient, principal: Principal): Promise<{ ids: string[]; vectors: Float32Array[] }> {
  const ids: string[] = [];
  const vectors: Float32Array[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await sql.query<{ id: string; embedding: string }>(
      raw(
        'SELECT id::text AS id, embedding::text AS embedding FROM memories WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND id > $4::uuid ORDER BY id LIMIT 2000',
        [principal.region, principal.userId, KIND, after],
      ),
    );
    for (const row of rows) {
      ids.push(row.id);
      vectors.push(Float32Array.from(JSON.parse(row.embedding) as number[]));
    }
    const last = rows.at(-1);
    if (!last || rows.length < 2000) break;
    after = last.id;
  }
  return { ids, vectors };
}

/**
 * Recall p50 per size, the sizes interleaved query by query (the order rotating), through the
 * memory service's recall (the MCP tool's one statement); then, per size, the share of the exact
 * 10 nearest (cosine, computed here from every vector of the partition) that the engine's vector
 * search returns (the vector arm alone: no floor, nothing following).
 */
async function measureSizes(options: EngineBenchOptions, sql: SqlClient): Promise<SizeFigures[]> {
  const largest = Math.max(...options.sizes);
  const { memories, queries } = benchText(largest, Math.max(options.queries, options.overlapQueries) + 10);
  const users = await fill(options, sql, memories);
  const stores = sqlMemoryStores(sql);
  // The sweep the server runs on a timer: on PostgreSQL a partition past VECTOR_CELLS.from gets its cells (decision 0083).
  const swept = await new Sweeper(stores.maintenance, RULES, systemClock, new LexicalAnalyzer()).run(BENCH_REGION, {
    batchSize: 500,
    maxBatches: 10,
  });
  options.print(`  the sweep built the vector cells of ${swept.cells.built} partitions`);
  // As a running server's tables are: PostgreSQL's autovacuum would have analysed them (CockroachDB collects statistics itself).
  if (sql.engine === 'postgres') await sql.exec('VACUUM ANALYZE');
  const embedder = new LocalEmbedder(DIMENSIONS);
  const service = (ranking: RecallRanking, cellRows: number = FUSION.cellRows) =>
    memoryServices({
      stores,
      embedder,
      judge: new ExactOnlyJudge(),
      clock: systemClock,
      rules: RULES,
      ranking,
      scoring: { fusion: { ...FUSION, cellRows }, lexical: LEXICAL },
    });
  const recall = service('hybrid').curation;
  const times = options.sizes.map(() => [] as number[]);
  const asked = queries.slice(0, options.queries + 10);
  for (const [q, query] of asked.entries()) {
    for (let j = 0; j < users.length; j += 1) {
      const s = (q + j) % users.length;
      const principal = users[s];
      if (!principal) continue;
      const started = performance.now();
      await recall.recall(principal, { query, kinds: [KIND], limit: 10 });
      // The first ten rounds are an untimed warm-up, on every size alike.
      if (q >= 10) times[s]?.push(performance.now() - started);
    }
    const done = q + 1 - 10;
    if (done > 0 && (done % Math.max(1, Math.floor(options.queries / 4)) === 0 || done === options.queries)) {
      const medians = options.sizes.map((size, s) => `${size}: ${median(times[s] ?? []).toFixed(1)}`).join(' · ');
      options.print(`  recall ${done} of ${options.queries} per size · p50 ms at ${medians}`);
    }
  }
  if (sql.engine === 'cockroach') {
    const [beam] = await sql.query<{ vector_search_beam_size: string }>(raw('SHOW vector_search_beam_size'));
    options.print(`  the vector index (C-SPANN) searched with vector_search_beam_size = ${beam?.vector_search_beam_size ?? '?'}`);
  } else {
    options.print(
      '  on PostgreSQL, the vector search reads the nearest cells up to FUSION.cellRows memories of a partition; every cell read too, as a check',
    );
  }
  const vectorArm = service('vector').page;
  const everyCell = sql.engine === 'postgres' ? service('vector', 1_000_000_000).page : undefined;
  const figures: SizeFigures[] = [];
  for (const [s, principal] of users.entries()) {
    const size = options.sizes[s] ?? 0;
    const { ids, vectors } = await vectorsOf(sql, principal);
    let kept = 0;
    let keptEveryCell = 0;
    let wanted = 0;
    const overlapQueries = queries.slice(10, 10 + options.overlapQueries);
    for (const query of overlapQueries) {
      const q = await embedder.embed(query);
      const exact = vectors.map((v, i) => ({ id: ids[i] ?? '', d: cosineDistance(v, q) })).sort((a, b) => a.d - b.d);
      const top = exact.slice(0, 10);
      // A memory as near as the tenth counts too: ties have no order.
      const tenth = (top.at(-1)?.d ?? 0) + 1e-6;
      const near = new Set(exact.filter((e) => e.d <= tenth).map((e) => e.id));
      const agreeing = async (page: typeof vectorArm) =>
        (await page.search(principal, { query, kinds: [KIND], limit: 10 })).filter((m) => near.has(m.id)).length;
      wanted += top.length;
      kept += await agreeing(vectorArm);
      if (everyCell) keptEveryCell += await agreeing(everyCell);
    }
    figures.push({
      size,
      recallP50: median(times[s] ?? []),
      overlap: kept / Math.max(wanted, 1),
      overlapEveryCell: everyCell ? keptEveryCell / Math.max(wanted, 1) : undefined,
    });
    options.print(
      `  partition of ${size}: vector search keeps ${((100 * kept) / Math.max(wanted, 1)).toFixed(1)} % of the exact 10 nearest over ${overlapQueries.length} queries`,
    );
  }
  return figures;
}

/** Busy and retry counts under concurrent writers (test/pg/contention.ts's rounds, checked on the rows). */
async function contend(options: EngineBenchOptions): Promise<RoundFigures[]> {
  const bench = await openContentionBench(options.url, 10);
  const figures: RoundFigures[] = [];
  try {
    for (const scenario of SCENARIOS) {
      for (let r = 0; r < options.rounds; r += 1) figures.push(await bench.round(scenario, options.writers));
      const last = figures.filter((f) => f.scenario === scenario);
      const sum = (pick: (f: RoundFigures) => number) => last.reduce((n, f) => n + pick(f), 0);
      options.print(
        `  ${scenario}: ${options.rounds} rounds of ${options.writers} writers · busy ${sum((f) => f.busy)} · retries ${sum((f) => f.retries)} · violations ${sum((f) => f.violations.length)}`,
      );
    }
  } finally {
    await bench.close();
  }
  return figures;
}

/** Runs every part on the database `url` names; throws NotScratchError before writing anything when it is not a scratch one. */
export async function runEngineBench(options: EngineBenchOptions): Promise<EngineFigures> {
  const sql = await PgSqlClient.connect({
    url: options.url,
    maxConnections: 4,
    statementTimeoutMs: 300_000,
    connectionTimeoutMs: 30_000,
  });
  try {
    const before = await scratchState(sql);
    if ((before.foreign.length > 0 || before.filled.length > 0) && !options.force) {
      const found = [
        before.foreign.length > 0 ? `tables that are not naaba's (${before.foreign.join(', ')})` : '',
        before.filled.length > 0 ? `naaba tables holding rows (${before.filled.join(', ')})` : '',
      ]
        .filter((x) => x !== '')
        .join(' and ');
      throw new NotScratchError(
        `the database is not empty: it has ${found}. bench:engine migrates the database and writes tens of thousands of rows; point it at a scratch database (CREATE DATABASE naaba_bench), or give --force yes to write beside what is there (nothing is deleted then, and the bench's own rows stay)`,
      );
    }
    const startedEmpty = before.foreign.length === 0 && before.filled.length === 0;
    options.print(
      `  migrating (${sql.engine === 'cockroach' ? 'CockroachDB' : 'PostgreSQL'} DDL, ${DIMENSIONS}-dimensional embeddings)`,
    );
    await migrate(sql, { embeddingDimensions: DIMENSIONS, regions: sql.engine === 'cockroach' ? options.regions : undefined });
    const dimensions = await schemaDimensions(sql);
    if (dimensions !== DIMENSIONS) {
      throw new NotScratchError(
        `the database was migrated for ${dimensions}-dimensional embeddings; the bench stores ${DIMENSIONS}: use a scratch database`,
      );
    }
    const regions =
      sql.engine === 'cockroach'
        ? (await sql.query<{ region: string }>(raw('SELECT region FROM [SHOW REGIONS FROM DATABASE]'))).map((r) => r.region)
        : [BENCH_REGION];
    if (!regions.includes(BENCH_REGION)) {
      throw new NotScratchError(
        `the bench's users live in ${BENCH_REGION}, which is not a region of this database (${regions.join(', ')}): add it (--regions ${regions[0] ?? 'PRIMARY'},${BENCH_REGION}, on a cluster with nodes in that locality)`,
      );
    }
    // What the bench's vectors and terms are made by, as a server records it on an empty database.
    await recordIndexedWith(sql, { embedder: new LocalEmbedder(DIMENSIONS).name, lexical: new LexicalAnalyzer().name });
    try {
      options.print(`statements per tool call${sql.engine === 'cockroach' ? ', and the KV requests each sends' : ''}`);
      const calls = await countCalls(options, sql);
      options.print(`recall p50 at ${options.sizes.join(', ')} memories in one partition, interleaved`);
      const sizes = await measureSizes(options, sql);
      options.print(`concurrent writers: ${options.rounds} rounds × ${options.writers} per scenario over 10 connections`);
      const contention = await contend(options);
      return { engine: sql.engine, ...calls, sizes, contention };
    } finally {
      if (startedEmpty) {
        const after = await scratchState(sql);
        if (after.tables.length > 0) await sql.exec(`TRUNCATE ${after.tables.map((t) => `"${t}"`).join(', ')}`);
        options.print('  emptied the naaba tables again (the database was empty when the bench began; the schema stays)');
      } else {
        options.print(`  --force: the bench's rows stay in region ${BENCH_REGION} beside what was there`);
      }
    }
  } finally {
    await sql.close();
  }
}
