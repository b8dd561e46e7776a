/**
 * `npm run bench:load-cost -- [--sizes 5000,50000] [--trials 5] [--engine pglite|postgres] [--sync] [--vacuum]`:
 * what a bulk load costs per memory at each size (issue 51, point 3: at most 1.3× from 5,000 to
 * 50,000; decision 0163). Each trial gives every size a new database of its own (a PGlite folder,
 * or a PostgreSQL cluster) holding one user's partition of that many LoCoMo turns, loaded as
 * `bench:partition` loads them (`TransferStore.load`, 5,000 a statement). Once all are loaded, the
 * same 5,000 further memories go into each partition through the same statement, one database right
 * after the other (the order reversed every trial), and that statement is timed: the load's next
 * statement at each size, seconds apart, so the machine's swings (which move one load's windows by
 * 1.5× and more on a busy 2-core machine) weigh on every size alike. Those memories are turns of the
 * smallest partition said again with a number, so every partition already holds their text and
 * each brings one new term at every size. The bench prints each trial, the median of the trials'
 * ratios (largest size over smallest) and each size's fastest statement and their ratio (the
 * machine only adds time), and the whole loads' ms per memory, each with its empty start, and the
 * median of their ratios, read two ways: each size's load against the trial's load of the smallest
 * size, made alone before it, and against the loads of the smallest size made between its windows
 * (each in a database of its own, untimed for the larger load; decision 0164), which have the
 * minute a large load takes on the machine beside them. `--sync` writes the page cache to disk
 * before each timed statement, untimed; `--vacuum` vacuums each database's tables before it (PGlite
 * runs no autovacuum).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { LOAD_MEMORIES } from '../lambda/adapters/pg/statements/transfer/load-memories.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { loadable } from './loadable.js';
import {
  benchFlags,
  distinctTurns,
  LOAD_WINDOW,
  type LoadWindows,
  loadEvents,
  loadTurns,
  locomoTexts,
  openBenchEngine,
  printWindows,
} from './probe.js';

const USAGE = `usage: npm run bench:load-cost -- [--sizes 5000,50000] [--trials 5] [--engine pglite|postgres] [--vacuum] [--sync]
--sizes lists partition sizes, multiples of ${LOAD_WINDOW}; --trials is how many times each size's database is loaded and its next statement timed
(and, between each two windows of a larger size's load, a whole load of the smallest size made in a database of its own);
--vacuum vacuums each database's tables after its load, untimed, before the next statement;
--sync writes the page cache to disk (sync), untimed, before each timed statement.`;

const VACUUM = process.argv.includes('--vacuum');
const SYNC = process.argv.includes('--sync');
const { flags, fail } = benchFlags(
  process.argv.slice(2).filter((arg) => arg !== '--vacuum' && arg !== '--sync'),
  ['sizes', 'trials'],
  USAGE,
);
const SIZES = (flags.sizes ?? '5000,50000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const TRIALS = Number(flags.trials ?? 5);
if (SIZES.length < 2 || SIZES.some((n) => !Number.isInteger(n) || n < LOAD_WINDOW || n % LOAD_WINDOW !== 0)) {
  fail(`--sizes lists at least two multiples of ${LOAD_WINDOW}`);
}
if (!Number.isInteger(TRIALS) || TRIALS < 1) fail('--trials is a whole number of at least 1');

/** Whether a query is the bulk load's statement. */
const isLoad = (query: Query) => (query as { statement?: { name: string } }).statement?.name === LOAD_MEMORIES.name;

/**
 * The engine's client, with the time of the last load statement it ran (ms). What the inner client
 * offers besides `query` is forwarded, so the store runs the load as it runs it on that engine
 * (`asCeilingWrite`, and `inQueue` for a retry; decision 0056).
 */
class TimedLoads implements SqlClient {
  readonly engine: SqlClient['engine'];
  lastMs = 0;
  readonly read?: SqlClient['read'];
  readonly ceiling?: SqlClient['ceiling'];
  readonly transaction?: SqlClient['transaction'];
  readonly queue?: SqlClient['queue'];

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
    if (inner.read) this.read = (query) => inner.read?.(query) ?? inner.query(query);
    if (inner.ceiling) this.ceiling = (query) => this.timed(query, () => inner.ceiling?.(query) ?? inner.query(query));
    if (inner.transaction) this.transaction = (work) => inner.transaction?.(work) ?? work(inner);
    if (inner.queue) this.queue = (locks, query) => this.timed(query, () => inner.queue?.(locks, query) ?? inner.query(query));
  }

  query<R>(query: Query): Promise<R[]> {
    return this.timed(query, () => this.inner.query<R>(query));
  }

  private async timed<R>(query: Query, run: () => Promise<R[]>): Promise<R[]> {
    const t = performance.now();
    const rows = await run();
    if (isLoad(query)) this.lastMs = performance.now() - t;
    return rows;
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The middle value (of an even count, the mean of the two middle ones). */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const upper = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[upper] ?? Number.NaN)
    : ((sorted[upper - 1] ?? Number.NaN) + (sorted[upper] ?? Number.NaN)) / 2;
}

const started = performance.now();
const progress = (line: string) => console.log(`  [${Math.round((performance.now() - started) / 1000)} s] ${line}`);
const fixed = (ms: number) => ms.toFixed(3);
const using = { embedder: new LocalEmbedder(256), analyzer: new LexicalAnalyzer(), batch: LOAD_WINDOW };
const { turns } = locomoTexts();
const largest = Math.max(...SIZES);
const smallest = Math.min(...SIZES);
// Turns no partition holds, each a turn of the smallest partition said again with its number (as
// `distinctTurns` tells repeats apart): every partition holds the same text before the number, so
// the statement meets the same known terms and one new one per memory at every size.
const pastLargest = distinctTurns(turns, largest + LOAD_WINDOW * Math.ceil(turns.length / smallest) + LOAD_WINDOW);
const trialContents = pastLargest
  .map((content, position) => ({ content, position }))
  .filter(({ position }) => position >= largest && position % turns.length < smallest)
  .slice(0, LOAD_WINDOW)
  .map(({ content }) => content);
if (trialContents.length !== LOAD_WINDOW) throw new Error(`found ${trialContents.length} trial turns, not ${LOAD_WINDOW}`);
const trialMemories = await Promise.all(trialContents.map((content) => loadable(content, using.embedder, using.analyzer)));

/** One size's database with its partition loaded: the load's windows, its next statement, and the end. */
interface Partition {
  readonly size: number;
  readonly windows: LoadWindows;
  /** The trial memories loaded into the partition, committed; ms per memory of the statement. */
  readonly next: () => Promise<number>;
  readonly stop: () => Promise<void>;
}

/** One size's database, loaded; `progress` hears the load's windows, `between` runs between them, untimed. */
async function loadPartition(size: number, progress?: (line: string) => void, between?: () => Promise<void>): Promise<Partition> {
  const engine = await openBenchEngine(flags);
  try {
    await migrate(engine.sql, { embeddingDimensions: 256 });
    const client = new TimedLoads(engine.sql);
    const stores = sqlMemoryStores(client);
    const scope = { region: 'eu-central-1', userId: randomUUID() };
    const windows = await loadTurns(stores, scope, turns, size, { ...using, progress, between });
    const next = async () => {
      if (VACUUM) await engine.sql.exec('VACUUM memories, memory_terms, memory_partition_terms, memory_partitions');
      // What the loads left in the page cache goes to disk first, untimed, not during the statement.
      if (SYNC) execFileSync('sync');
      client.lastMs = 0;
      const written = await loadEvents(stores, scope, trialMemories);
      if (written !== trialMemories.length || client.lastMs <= 0) {
        throw new Error(`the timed load wrote ${String(written)} of ${trialMemories.length} memories in ${client.lastMs} ms`);
      }
      return client.lastMs / trialMemories.length;
    };
    return { size, windows, next, stop: engine.stop };
  } catch (e) {
    await engine.stop();
    throw e;
  }
}

console.log(
  `bench:load-cost  ${flags.engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}, partitions of ${SIZES.join(', ')} LoCoMo turns, each in a new database, ${TRIALS} trials: the next ${LOAD_WINDOW}-memory load statement into each, timed${VACUUM ? ', after a vacuum of its tables' : ''}${SYNC ? ', after a sync' : ''}`,
);
const perMemory: number[][] = SIZES.map(() => []);
/** Each trial's whole loads, ms per memory, by size. */
const wholeLoads: number[][] = SIZES.map(() => []);
/** Each trial's whole loads of the smallest size made between the windows of each size's load, ms per memory (mean). */
const besideLoads: number[][] = SIZES.map(() => []);
const perLoaded = (p: Partition) => (p.windows.seconds() * 1000) / p.size;
const mean = (xs: readonly number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
let first: Partition[] = [];
for (let t = 0; t < TRIALS; t += 1) {
  const partitions: Partition[] = [];
  try {
    for (const [i, size] of SIZES.entries()) {
      // Between two windows of a larger load, a whole load of the smallest size in a database of its
      // own, untimed for the larger one: each of its windows has a small load beside it, so the
      // machine's swings over the minute a large load takes weigh on both readings alike.
      const small: number[] = [];
      const between =
        size === smallest
          ? undefined
          : async () => {
              const beside = await loadPartition(smallest);
              await beside.stop();
              small.push(perLoaded(beside));
            };
      // The first trial's loads tell their windows as they go; the others only when they are done.
      partitions.push(await loadPartition(size, t === 0 ? progress : undefined, between));
      besideLoads[i]?.push(small.length > 0 ? mean(small) : Number.NaN);
      progress(
        `trial ${t + 1}: ${size} memories loaded${small.length > 0 ? `, ${small.length} loads of ${smallest} beside its windows` : ''}`,
      );
    }
    const order = t % 2 === 0 ? partitions.map((_, i) => i) : partitions.map((_, i) => partitions.length - 1 - i);
    for (const i of order) {
      const partition = partitions[i];
      if (partition) perMemory[i]?.push(await partition.next());
    }
  } finally {
    for (const p of partitions) await p.stop();
  }
  for (const [i, p] of partitions.entries()) wholeLoads[i]?.push(perLoaded(p));
  if (t === 0) first = partitions;
  const line = SIZES.map((size, i) => `${size}: ${fixed(perMemory[i]?.[t] ?? 0)} ms`).join(', ');
  const ratio = (perMemory.at(-1)?.[t] ?? 0) / (perMemory[0]?.[t] ?? 1);
  const wholeRatio = (wholeLoads.at(-1)?.[t] ?? 0) / (wholeLoads[0]?.[t] ?? 1);
  const besideRatio = (wholeLoads.at(-1)?.[t] ?? 0) / (besideLoads.at(-1)?.[t] ?? 1);
  progress(
    `trial ${t + 1} of ${TRIALS}: the next statement, per memory, at ${line}; ${largest} over ${SIZES[0]}: ${ratio.toFixed(2)}× (whole loads ${wholeRatio.toFixed(2)}×, beside its windows ${besideRatio.toFixed(2)}×)`,
  );
}

for (const p of first) {
  console.log(
    `  the first trial's load of ${p.size} memories, ${LOAD_WINDOW} per statement: ${p.windows.seconds().toFixed(1)} s`,
  );
  printWindows(p.windows.windows);
}
const ratioOf = (series: number[][]) => (series.at(-1) ?? []).map((ms, t) => ms / (series[0]?.[t] ?? 1));
const listed = (xs: readonly number[]) => xs.map((r) => r.toFixed(2)).join(', ');
const ratios = ratioOf(perMemory);
const wholeRatios = ratioOf(wholeLoads);
const fastest = perMemory.map((ms) => Math.min(...ms));
console.log(`  the next load statement of ${LOAD_WINDOW} memories, ms per memory: median of the trials, fastest`);
for (const [i, size] of SIZES.entries()) {
  console.log(
    `    into a partition of ${String(size).padStart(6)}: ${fixed(median(perMemory[i] ?? []))}, ${fixed(fastest[i] ?? 0)}`,
  );
}
console.log(
  `  ${largest} over ${SIZES[0]}, the next statement: median ${median(ratios).toFixed(2)}× of ${TRIALS} trials (${listed(ratios)}); fastest over fastest ${((fastest.at(-1) ?? 0) / (fastest[0] ?? 1)).toFixed(2)}×`,
);
console.log(
  `  ${largest} over ${SIZES[0]}, whole loads (each with its empty start): median ${median(wholeRatios).toFixed(2)}× (${listed(wholeRatios)}); ${SIZES.map((size, i) => `${size} in ${fixed(median(wholeLoads[i] ?? []))} ms per memory`).join(', ')} (medians)`,
);
const besideRatios = (wholeLoads.at(-1) ?? []).map((ms, t) => ms / (besideLoads.at(-1)?.[t] ?? 1));
// What a load of the smallest size costs beside the larger load's windows, over the trial's own one
// (made first, alone): above 1 when the larger load's database, open beside them, slows them.
const besideOverAlone = (besideLoads.at(-1) ?? []).map((ms, t) => ms / (wholeLoads[0]?.[t] ?? 1));
console.log(
  `  ${largest} over ${SIZES[0]}, whole loads, a load of ${SIZES[0]} between each two windows of ${largest}: median ${median(besideRatios).toFixed(2)}× (${listed(besideRatios)}); the loads of ${SIZES[0]} beside them in ${fixed(median(besideLoads.at(-1) ?? []))} ms per memory (median of the trials' means)`,
);
console.log(
  `  the loads of ${SIZES[0]} beside the windows over the trial's own load of ${SIZES[0]}: median ${median(besideOverAlone).toFixed(2)}× (${listed(besideOverAlone)})`,
);
