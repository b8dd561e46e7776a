/**
 * `npm run bench:load-cost -- [--sizes 5000,50000] [--trials 5] [--engine pglite|postgres]`: what
 * one bulk-load statement costs per memory in a partition of each size (issue 51, point 3: at most
 * 1.3× from 5,000 to 50,000; decision 0163). Each trial gives every size a new database of its own
 * (a PGlite folder, or a PostgreSQL cluster) holding one user's partition of that many LoCoMo
 * turns, loaded as `bench:partition` loads them (`TransferStore.load`, 5,000 a statement). Once all
 * are loaded, the same 5,000 further turns go into each partition through the same statement, one
 * database right after the other (the order reversed every trial), and only that statement is timed:
 * the load's next statement at each size, written into the partition as the load left it, seconds
 * apart (each after a `sync`, untimed, so the kernel is not still writing the loads' pages to disk
 * during it), so the machine's swings (which move one load's windows by 1.5× and more on a busy 2-core
 * machine) weigh on every size alike. The bench prints each trial, the median of the trials' ratios
 * (largest size over smallest), and each size's fastest statement and their ratio (the machine only
 * ever adds time, so the fastest is the nearest to a quiet machine's), then the first trial's load
 * windows and whole loads for comparison. `--vacuum` vacuums each database's tables before its next
 * statement (PGlite runs no autovacuum; a load leaves dead versions of its term counts).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { LOAD_MEMORIES } from '../lambda/adapters/pg/statements/transfer/load-memories.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { quantile } from '../test/eval/distance-stats.js';
import { parseFlags } from '../test/support/jest-run.js';
import { loadable } from './loadable.js';
import {
  distinctTurns,
  LOAD_WINDOW,
  type LoadWindows,
  loadEvents,
  loadTurns,
  locomoTexts,
  openBenchEngine,
  printWindows,
} from './probe.js';

const USAGE = `usage: npm run bench:load-cost -- [--sizes 5000,50000] [--trials 5] [--engine pglite|postgres] [--vacuum]
--sizes lists partition sizes, multiples of ${LOAD_WINDOW}; --trials is how many times each size's database is loaded and its next statement timed;
--vacuum vacuums each database's tables after its load, untimed, before the next statement.`;

const VACUUM = process.argv.includes('--vacuum');
const parsed = parseFlags(
  process.argv.slice(2).filter((arg) => arg !== '--vacuum'),
  ['sizes', 'trials', 'engine'],
);
const fail = (why: string): never => {
  console.error(`${why}\n\n${USAGE}`);
  process.exit(2);
};
if (typeof parsed === 'string') fail(parsed);
const flags = parsed as Exclude<typeof parsed, string>;
if (flags.engine && !['pglite', 'postgres'].includes(flags.engine)) fail('--engine is pglite or postgres');
const SIZES = (flags.sizes ?? '5000,50000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const TRIALS = Number(flags.trials ?? 5);
if (SIZES.length < 2 || SIZES.some((n) => !Number.isInteger(n) || n < LOAD_WINDOW || n % LOAD_WINDOW !== 0)) {
  fail(`--sizes lists at least two multiples of ${LOAD_WINDOW}`);
}
if (!Number.isInteger(TRIALS) || TRIALS < 1) fail('--trials is a whole number of at least 1');

/** The engine's client, with the time of the last load statement it ran (ms). */
class TimedLoads implements SqlClient {
  readonly engine: SqlClient['engine'];
  lastMs = 0;

  /** Forwarded where the inner client has it, as the store's load asks for it (decision 0056). */
  readonly ceiling?: SqlClient['ceiling'];

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
    if (inner.ceiling) this.ceiling = (query) => this.timed(query, () => inner.ceiling?.(query) ?? inner.query(query));
  }

  query<R>(query: Query): Promise<R[]> {
    return this.timed(query, () => this.inner.query<R>(query));
  }

  private async timed<R>(query: Query, run: () => Promise<R[]>): Promise<R[]> {
    const t = performance.now();
    const rows = await run();
    if ((query as { statement?: { name: string } }).statement?.name === LOAD_MEMORIES.name) this.lastMs = performance.now() - t;
    return rows;
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The middle value (of an even count, the upper of the two middle ones). */
const median = (xs: readonly number[]) =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

const started = performance.now();
const progress = (line: string) => console.log(`  [${Math.round((performance.now() - started) / 1000)} s] ${line}`);
const fixed = (ms: number) => ms.toFixed(3);
const using = { embedder: new LocalEmbedder(256), analyzer: new LexicalAnalyzer(), batch: LOAD_WINDOW };
const { turns } = locomoTexts();
const largest = Math.max(...SIZES);
// Turns no partition holds: past the largest one's.
const trialMemories = await Promise.all(
  distinctTurns(turns, largest + LOAD_WINDOW)
    .slice(largest)
    .map((content) => loadable(content, using.embedder, using.analyzer)),
);

/** One size's database with its partition loaded: the load's windows, its next statement, and the end. */
interface Partition {
  readonly size: number;
  readonly windows: LoadWindows;
  /** The trial memories loaded into the partition, committed; ms per memory of the statement. */
  readonly next: () => Promise<number>;
  readonly stop: () => Promise<void>;
}

/** One size's database, loaded; `progress` hears the load's windows. */
async function loadPartition(size: number, progress?: (line: string) => void): Promise<Partition> {
  const engine = await openBenchEngine(flags);
  try {
    await migrate(engine.sql, { embeddingDimensions: 256 });
    const client = new TimedLoads(engine.sql);
    const stores = sqlMemoryStores(client);
    const scope = { region: 'eu-central-1', userId: randomUUID() };
    const windows = await loadTurns(stores, scope, turns, size, { ...using, progress });
    const next = async () => {
      if (VACUUM) await engine.sql.exec('VACUUM memories, memory_terms, memory_partition_terms, memory_partitions');
      // What the loads left in the page cache goes to disk first, untimed, not during the statement.
      execFileSync('sync');
      await loadEvents(stores, scope, trialMemories);
      return client.lastMs / trialMemories.length;
    };
    return { size, windows, next, stop: engine.stop };
  } catch (e) {
    await engine.stop();
    throw e;
  }
}

console.log(
  `bench:load-cost  ${flags.engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}, partitions of ${SIZES.join(', ')} LoCoMo turns, each in a new database, ${TRIALS} trials: the next ${LOAD_WINDOW}-memory load statement into each, timed${VACUUM ? ', after a vacuum of its tables' : ''}`,
);
const perMemory: number[][] = SIZES.map(() => []);
let first: Partition[] = [];
for (let t = 0; t < TRIALS; t += 1) {
  const partitions: Partition[] = [];
  try {
    for (const size of SIZES) {
      // The first trial's loads tell their windows as they go; the others only when they are done.
      partitions.push(await loadPartition(size, t === 0 ? progress : undefined));
      progress(`trial ${t + 1}: ${size} memories loaded`);
    }
    const order = t % 2 === 0 ? partitions.map((_, i) => i) : partitions.map((_, i) => partitions.length - 1 - i);
    for (const i of order) {
      const partition = partitions[i];
      if (partition) perMemory[i]?.push(await partition.next());
    }
  } finally {
    for (const p of partitions) await p.stop();
  }
  if (t === 0) first = partitions;
  const line = SIZES.map((size, i) => `${size}: ${fixed(perMemory[i]?.[t] ?? 0)} ms`).join(', ');
  const ratio = (perMemory.at(-1)?.[t] ?? 0) / (perMemory[0]?.[t] ?? 1);
  progress(
    `trial ${t + 1} of ${TRIALS}: the next statement, per memory, at ${line}; ${largest} over ${SIZES[0]}: ${ratio.toFixed(2)}×`,
  );
}

for (const p of first) {
  console.log(
    `  the first trial's load of ${p.size} memories, ${LOAD_WINDOW} per statement: ${p.windows.seconds().toFixed(1)} s`,
  );
  printWindows(p.windows.windows);
}
const [smallest, whole] = [first[0], first.at(-1)];
if (smallest && whole) {
  const perLoaded = (p: Partition) => (p.windows.seconds() * 1000) / p.size;
  console.log(
    `  whole loads (first trial), ms per memory: ${first.map((p) => `${p.size}: ${fixed(perLoaded(p))}`).join(', ')}; ${whole.size} over ${smallest.size}: ${(perLoaded(whole) / perLoaded(smallest)).toFixed(2)}× (the first ${LOAD_WINDOW} of each went into an empty partition)`,
  );
}
const ratios = (perMemory.at(-1) ?? []).map((ms, t) => ms / (perMemory[0]?.[t] ?? 1));
const fastest = perMemory.map((ms) => Math.min(...ms));
console.log(`  the next load statement of ${LOAD_WINDOW} memories, ms per memory: median of the trials, fastest`);
for (const [i, size] of SIZES.entries()) {
  console.log(
    `    into a partition of ${String(size).padStart(6)}: ${fixed(median(perMemory[i] ?? []))}, ${fixed(fastest[i] ?? 0)}`,
  );
}
console.log(
  `  ${largest} over ${SIZES[0]}: median ${median(ratios).toFixed(2)}× of ${TRIALS} trials (${ratios.map((r) => r.toFixed(2)).join(', ')}); fastest over fastest ${((fastest.at(-1) ?? 0) / (fastest[0] ?? 1)).toFixed(2)}×`,
);
