/**
 * `npm run bench:load-plan -- [--memories 30000] [--at 0,5000,25000] [--engine pglite|postgres] [--buffers MB]`:
 * where a bulk load's time per memory goes as the partition grows. One user's partition is loaded
 * with LoCoMo turns through the store (`TransferStore.load`, 5,000 a statement, as bench:partition
 * loads), and the load statements that start at the `--at` sizes run under `EXPLAIN (ANALYZE,
 * BUFFERS, WAL)` instead of plainly, so they write exactly what they would have. For each, the bench
 * prints what each table's insert took: rows, pages read from outside the buffers, dirtied and
 * written, and the write-ahead log (whole pages after a checkpoint, bytes), and the time the insert
 * took beyond its input; the other load statements are timed as they run. On PGlite, after every
 * load statement it also prints the pages each posting found in the buffers, in `memory_terms` and
 * in each of its indexes: an index's count is its depth, since every entry is inserted from the root
 * (decision 0165). `--buffers` sets PGlite's shared buffers, to tell reads from outside them apart
 * from work that no buffers save. (Its `--without memory_terms_ranked`, a probe of one term-ordered
 * index per posting, went when that became the schema: decision 0167.) Timings of explained
 * statements are EXPLAIN's, so read them against each other, not against bench:partition's.
 */
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { sql as sqlText } from '../lambda/adapters/pg/sql/template.js';
import { LOAD_MEMORIES } from '../lambda/adapters/pg/statements/transfer/load-memories.js';
import { PGLITE_BUFFERS_MB } from '../lambda/config/database.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { benchFlags, LOAD_WINDOW, locomoTexts, loadTurns, openBenchEngine } from './probe.js';

const USAGE = `usage: npm run bench:load-plan -- [--memories 30000] [--at 0,5000,25000] [--engine pglite|postgres] [--buffers MB]
--at lists the partition sizes (multiples of ${LOAD_WINDOW}) whose load statement is explained.
--buffers gives PGlite that many MB of shared buffers instead of those its folder's data chooses.`;

const { flags, fail } = benchFlags(process.argv.slice(2), ['memories', 'at', 'buffers'], USAGE);
const BUFFERS = flags.buffers === undefined ? undefined : Number(flags.buffers);
if (BUFFERS !== undefined && flags.engine === 'postgres') fail('--buffers is for PGlite');
if (
  BUFFERS !== undefined &&
  !(Number.isInteger(BUFFERS) && BUFFERS >= PGLITE_BUFFERS_MB.min && BUFFERS <= PGLITE_BUFFERS_MB.max)
) {
  fail(`--buffers is a whole number of MB from ${PGLITE_BUFFERS_MB.min} to ${PGLITE_BUFFERS_MB.max}`);
}
const MEMORIES = Number(flags.memories ?? 30_000);
const AT = (flags.at ?? '0,5000,25000').split(',').map(Number);
if (!Number.isInteger(MEMORIES) || MEMORIES < LOAD_WINDOW) fail(`--memories is a whole number of at least ${LOAD_WINDOW}`);
if (AT.some((n) => !Number.isInteger(n) || n < 0 || n % LOAD_WINDOW !== 0 || n >= MEMORIES)) {
  fail(`--at lists multiples of ${LOAD_WINDOW} below --memories`);
}

/** One node of a JSON plan, with the fields read here. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Shared Dirtied Blocks'?: number;
  'Shared Written Blocks'?: number;
  'WAL FPI'?: number;
  'WAL Bytes'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

const thousands = (n: number | undefined) => Math.round(n ?? 0).toLocaleString('en');

/** What a node took beyond its inputs (ms): for an insert, writing its rows and their index entries. */
const ownMs = (n: PlanNode) =>
  (n['Actual Total Time'] ?? 0) - Math.max(0, ...(n.Plans ?? []).map((child) => child['Actual Total Time'] ?? 0));

/** Each table insert of an explained plan, one line each, and the statement's execution time. */
function printPlan(at: number, plan: { Plan: PlanNode; 'Execution Time': number }): void {
  console.log(`  load statement at ${thousands(at)} memories: ${(plan['Execution Time'] / 1000).toFixed(2)} s executing`);
  for (const n of nodes(plan.Plan).filter((node) => node['Node Type'] === 'ModifyTable')) {
    console.log(
      `    ${(n['Relation Name'] ?? '?').padEnd(24)} ${thousands(n['Actual Rows']).padStart(8)} rows, ${(ownMs(n) / 1000).toFixed(2)} s its own` +
        `  pages hit ${thousands(n['Shared Hit Blocks']).padStart(9)}, read ${thousands(n['Shared Read Blocks']).padStart(7)}, dirtied ${thousands(n['Shared Dirtied Blocks']).padStart(7)},` +
        ` written ${thousands(n['Shared Written Blocks']).padStart(7)}` +
        `  log: ${thousands(n['WAL FPI']).padStart(7)} whole pages, ${((n['WAL Bytes'] ?? 0) / 2 ** 20).toFixed(0).padStart(4)} MiB`,
    );
  }
}

/** What the postings' table and indexes have counted so far: pages found in the buffers, by relation, and rows inserted. */
interface PostingCounts {
  readonly hits: Map<string, number>;
  readonly inserted: number;
}

/**
 * The postings' counts as PGlite's one session keeps them, flushed first so they include the last
 * statement. PostgreSQL's server keeps each connection's counts apart until it flushes them, so
 * there they are not read.
 */
async function postingCounts(db: SqlClient): Promise<PostingCounts> {
  await db.query(sqlText`SELECT pg_stat_force_next_flush()`);
  const rows = await db.query<{ relation: string; hits: string; inserted: string }>(sqlText`
    SELECT indexrelname AS relation, idx_blks_hit::text AS hits, '0' AS inserted FROM pg_statio_user_indexes WHERE relname = 'memory_terms'
    UNION ALL
    SELECT 'heap', s.heap_blks_hit::text, t.n_tup_ins::text
      FROM pg_statio_user_tables AS s JOIN pg_stat_user_tables AS t USING (relid) WHERE s.relname = 'memory_terms'`);
  return {
    hits: new Map(rows.map((r) => [r.relation, Number(r.hits)])),
    inserted: rows.reduce((n, r) => n + Number(r.inserted), 0),
  };
}

/** Pages each posting found in the buffers, in the table and each of its indexes: one per level of an index. */
function visitsLine(before: PostingCounts, after: PostingCounts): string {
  const postings = after.inserted - before.inserted;
  const each = [...after.hits].map(
    ([relation, hits]) => `${relation} ${((hits - (before.hits.get(relation) ?? 0)) / postings).toFixed(2)}`,
  );
  return `    pages hit per posting (${thousands(postings)} postings): ${each.join(', ')}`;
}

/**
 * The engine's client, where the load statement starting at one of the `--at` sizes runs explained:
 * EXPLAIN ANALYZE runs the statement, so the rows are written once, and the store is given the
 * count it asked for.
 */
class ExplainedLoads implements SqlClient {
  readonly engine: SqlClient['engine'];
  private loaded = 0;

  /** `counted`: the postings' page counts are read around each load statement (PGlite only). */
  constructor(
    private readonly inner: SqlClient,
    private readonly counted: boolean,
  ) {
    this.engine = inner.engine;
  }

  async query<R>(query: Query): Promise<R[]> {
    if ((query as { statement?: { name: string } }).statement?.name !== LOAD_MEMORIES.name) return this.inner.query<R>(query);
    const at = this.loaded;
    const memories = Math.min(LOAD_WINDOW, MEMORIES - at);
    this.loaded += memories;
    const before = this.counted ? await postingCounts(this.inner) : undefined;
    const visits = async () => before && console.log(visitsLine(before, await postingCounts(this.inner)));
    if (!AT.includes(at)) {
      const t = performance.now();
      const rows = await this.inner.query<R>(query);
      const ms = performance.now() - t;
      console.log(
        `  load statement at ${thousands(at)} memories: ${(ms / 1000).toFixed(2)} s, not explained (${(ms / memories).toFixed(2)} ms a memory)`,
      );
      await visits();
      return rows;
    }
    const [row] = await this.inner.query<{ 'QUERY PLAN': unknown }>({
      ...query,
      text: `EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${query.text}`,
    });
    const raw = row?.['QUERY PLAN'];
    const [plan] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode; 'Execution Time': number }[];
    if (!plan) throw new Error('EXPLAIN returned no plan');
    printPlan(at, plan);
    await visits();
    return [{ written: memories, posted: 0 } as R];
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const engine = await openBenchEngine({ ...flags, buffersMb: BUFFERS });
try {
  await migrate(engine.sql, { embeddingDimensions: 256 });
  const counted = engine.sql instanceof PgliteSqlClient;
  console.log(`bench:load-plan  ${engine.label}  ${thousands(MEMORIES)} LoCoMo turns, ${thousands(LOAD_WINDOW)} a statement`);
  if (!counted)
    console.log(
      "  (pages hit per posting are read on PGlite only: a server keeps each connection's counts apart until it flushes them)",
    );
  await loadTurns(
    sqlMemoryStores(new ExplainedLoads(engine.sql, counted)),
    { region: 'eu-central-1', userId: randomUUID() },
    locomoTexts().turns,
    MEMORIES,
    {
      embedder: new LocalEmbedder(256),
      analyzer: new LexicalAnalyzer(),
      batch: LOAD_WINDOW,
    },
  );
} finally {
  await engine.stop();
}
