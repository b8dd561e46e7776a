/**
 * `npm run bench:load-plan -- [--memories 30000] [--at 0,5000,25000] [--engine pglite|postgres]`:
 * where a bulk load's time per memory goes as the partition grows. One user's partition is loaded
 * with LoCoMo turns through the store (`TransferStore.load`, 5,000 a statement, as bench:partition
 * loads), and the load statements that start at the `--at` sizes run under `EXPLAIN (ANALYZE,
 * BUFFERS, WAL)` instead of plainly, so they write exactly what they would have. For each, the bench
 * prints what each table's insert took: rows, pages read from outside the buffers, dirtied and
 * written, and the write-ahead log (whole pages after a checkpoint, bytes), and the time the insert
 * took beyond its input; the other load statements are timed as they run. Timings of explained
 * statements are EXPLAIN's, so read them against each other, not against bench:partition's.
 */
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LOAD_MEMORIES } from '../lambda/adapters/pg/statements/transfer/load-memories.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { benchFlags, LOAD_WINDOW, locomoTexts, loadTurns, openBenchEngine } from './probe.js';

const USAGE = `usage: npm run bench:load-plan -- [--memories 30000] [--at 0,5000,25000] [--engine pglite|postgres]
--at lists the partition sizes (multiples of ${LOAD_WINDOW}) whose load statement is explained.`;

const { flags, fail } = benchFlags(process.argv.slice(2), ['memories', 'at'], USAGE);
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

/**
 * The engine's client, where the load statement starting at one of the `--at` sizes runs explained:
 * EXPLAIN ANALYZE runs the statement, so the rows are written once, and the store is given the
 * count it asked for.
 */
class ExplainedLoads implements SqlClient {
  readonly engine: SqlClient['engine'];
  private loaded = 0;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  async query<R>(query: Query): Promise<R[]> {
    if ((query as { statement?: { name: string } }).statement?.name !== LOAD_MEMORIES.name) return this.inner.query<R>(query);
    const at = this.loaded;
    const memories = Math.min(LOAD_WINDOW, MEMORIES - at);
    this.loaded += memories;
    if (!AT.includes(at)) {
      const t = performance.now();
      const rows = await this.inner.query<R>(query);
      const ms = performance.now() - t;
      console.log(
        `  load statement at ${thousands(at)} memories: ${(ms / 1000).toFixed(2)} s, not explained (${(ms / memories).toFixed(2)} ms a memory)`,
      );
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
    return [{ written: memories, posted: 0 } as R];
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const engine = await openBenchEngine(flags);
try {
  await migrate(engine.sql, { embeddingDimensions: 256 });
  console.log(`bench:load-plan  ${engine.label}  ${thousands(MEMORIES)} LoCoMo turns, ${thousands(LOAD_WINDOW)} a statement`);
  await loadTurns(
    sqlMemoryStores(new ExplainedLoads(engine.sql)),
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
