// `npm run bench:refresh -- [--size 50000] [--rounds 3] [--queries 40] [--snapshot FILE]`
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openAsBlob, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { inLane } from '../lambda/adapters/pg/fair-queue.js';
import { type PgliteSqlClient, STATISTICS_SAMPLE } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import { STALE_STATISTICS } from '../lambda/adapters/pg/statements/schema/stale-statistics.js';
import { send } from '../lambda/adapters/pg/sql/statement.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { Sweeper } from '../lambda/memory/maintenance/sweeper.js';
import type { Principal } from '../lambda/memory/model.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import { parseFlags } from '../test/support/jest-run.js';
import { BENCH_RULES, locomoTexts, loadTurns, openScratchPglite } from './probe.js';

/**
 * How long PGlite's statistics refresh holds up the calls sent while it runs (issue 32: at most
 * 200 ms), before and after decision 0117, at one partition of `--size` memories. One database is
 * built once: the partition loaded in bulk, then one sweep (its vector cells and the ranking of its
 * postings), which is what leaves the tables grown and full of changed pages. A copy of it is then
 * opened per round and variant, in turns (`before`, `after`, then `after`, `before`, …), so that
 * the machine's load falls on both alike:
 *
 * - `before` (decision 0105): ANALYZE of each grown table, then VACUUM of each, on the timer;
 * - `after` (decision 0117): the timer's `refreshStatistics` (ANALYZE only); VACUUM runs only when
 *   the database is opened, before the server listens (`vacuumWhereNeeded`), timed here apart.
 *
 * While the refresh runs, another user remembers and searches in a loop; every call that started
 * during it is counted, and its slowest is the stall. Then (probe stopped) the partition's user
 * searches `--queries` LoCoMo questions: the recall p50 that follows each refresh, i.e. what
 * serving without the VACUUM costs until the next open.
 */

const USAGE = `usage: npm run bench:refresh -- [--size 50000] [--rounds 3] [--queries 40] [--snapshot FILE]
--snapshot  keep the built database in FILE (about 2.4 GB at 50,000) and start from it when it exists`;
const flags = parseFlags(process.argv.slice(2), ['size', 'rounds', 'queries', 'snapshot']);
if (typeof flags === 'string') {
  console.error(`${flags}\n\n${USAGE}`);
  process.exit(2);
}
const SIZE = Number(flags.size ?? 50_000);
const ROUNDS = Number(flags.rounds ?? 3);
const QUERIES = Number(flags.queries ?? 40);
if (![SIZE, ROUNDS, QUERIES].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error(`--size, --rounds and --queries take positive whole numbers\n\n${USAGE}`);
  process.exit(2);
}
const DIMENSIONS = 256;
const REGION = 'eu-central-1';
const LOAD_BATCH = 100;
const RULES = BENCH_RULES;
const BUDGET_MS = 200;

const { turns, questions } = locomoTexts();

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const services = (db: PgliteSqlClient) =>
  memoryServices({
    stores: sqlMemoryStores(db),
    embedder: new LocalEmbedder(DIMENSIONS),
    judge: new ExactOnlyJudge(),
    clock: systemClock,
    rules: RULES,
  });

/** The database every round starts from: one partition of SIZE memories, swept once. */
async function build(): Promise<{ snapshot: Blob; user: Principal }> {
  const { sql: db, stop } = await openScratchPglite();
  await migrate(db, { embeddingDimensions: DIMENSIONS });
  const stores = sqlMemoryStores(db);
  const embedder = new LocalEmbedder(DIMENSIONS);
  const analyzer = new LexicalAnalyzer();
  const user: Principal = { userId: randomUUID(), region: REGION, agent: 'bench', keyId: randomUUID() };
  await loadTurns(stores, { region: REGION, userId: user.userId }, turns, SIZE, {
    embedder,
    analyzer,
    batch: LOAD_BATCH,
    progress,
  });
  // Statistics before the sweep, as the timer would have refreshed them during the load.
  for (const { table } of await send(db, STALE_STATISTICS, {})) await db.analyze(table);
  const sweeper = new Sweeper(stores.maintenance, RULES, systemClock, analyzer);
  const t = performance.now();
  const swept = await sweeper.run(REGION, { batchSize: 500, maxBatches: 1000 });
  progress(`swept in ${((performance.now() - t) / 1000).toFixed(1)} s: cells built for ${swept.cells.built} partitions`);
  const snapshot = await db.dump();
  await stop();
  return { snapshot, user };
}

/** How often the probe means to send a call: longer than a call takes on a loaded machine, so it keeps its schedule, and seldom enough that the fair queue never rests it as a flood (decision 0063). */
const PROBE_EVERY_MS = 400;

/**
 * Runs `work` while another user, in a lane of its own as a request of the local server would be,
 * remembers and searches on a fixed schedule; returns the waits of the calls due while `work` ran.
 * A wait is counted from when the call was due, not from when the loop got to send it: PGlite
 * holds this thread for the whole of a statement, so a call due during a VACUUM starts only after
 * it, as a request arriving at the server then would wait in its socket (the first call due
 * during a hold is counted; the schedule then starts again from now).
 */
async function whileProbing(db: PgliteSqlClient, work: () => Promise<void>): Promise<number[]> {
  const probe: Principal = { userId: randomUUID(), region: REGION, agent: 'probe', keyId: randomUUID() };
  const { curation, page } = services(db);
  const waits: number[] = [];
  let working = true;
  let window = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  // Each call is a request of its own, as the server runs one (decision 0161: the background gives way while one is in progress).
  const probing = (async () => {
    let due = performance.now();
    for (let i = 0; working; i += 1) {
      const now = performance.now();
      if (now < due) await new Promise((resolve) => setTimeout(resolve, due - now));
      if (i % 2 === 0) {
        await inLane('probe', () =>
          curation.remember(
            probe,
            { name: 'probe', version: '1' },
            { content: turns[i % turns.length] ?? 'probe', kind: 'event' },
          ),
        );
      } else {
        await inLane('probe', () =>
          page.search(probe, { query: questions[i % questions.length] ?? 'probe', kinds: ['event'], limit: 10 }),
        );
      }
      const done = performance.now();
      if (due >= window.from && due <= window.to) waits.push(done - due);
      due = Math.max(due + PROBE_EVERY_MS, done);
    }
  })();
  try {
    // Let the probe's first calls (its embedder and statements warming up) pass before the work starts.
    await new Promise((resolve) => setTimeout(resolve, 500));
    window = { from: performance.now(), to: Number.POSITIVE_INFINITY };
    await work();
    window = { ...window, to: performance.now() };
  } finally {
    working = false;
    await probing;
  }
  return waits;
}

type Variant = 'before' | 'after';

interface Round {
  readonly variant: Variant;
  readonly refreshMs: number;
  readonly steps: string;
  readonly calls: number;
  readonly probeP50: number;
  readonly stall: number;
  /** The refresh's longest statement: the most a call can wait, since other calls take their turns between statements. */
  readonly longestStep: number;
  readonly recallP50: number;
  /** `after` only: the VACUUM the next open runs, before anyone is served. */
  readonly openVacuumMs?: number;
  readonly openVacuumed?: string;
}

/** Decision 0105's refresh: each grown table's ANALYZE (every column), then each one's VACUUM, a statement each. */
async function refreshBefore(db: PgliteSqlClient, onStep: (statement: string, ms: number) => void): Promise<void> {
  const grown = (await send(db, STALE_STATISTICS, {})).map((g) => g.table);
  const step = async (statement: string, work: () => Promise<void>) => {
    const t = performance.now();
    await work();
    onStep(statement, performance.now() - t);
  };
  const script = (table: string) => `BEGIN; SET LOCAL default_statistics_target = ${STATISTICS_SAMPLE}; ANALYZE ${table}; COMMIT`;
  for (const table of grown) await step(`ANALYZE ${table}`, () => db.exec(script(table)));
  for (const table of grown) await step(`VACUUM ${table}`, () => db.exec(`VACUUM ${table}`));
}

async function round(snapshot: Blob, user: Principal, variant: Variant, n: number): Promise<Round> {
  const { sql: db, stop } = await openScratchPglite(snapshot);
  try {
    const steps: string[] = [];
    let longestStep = 0;
    const onStep = (statement: string, ms: number) => {
      steps.push(`${statement} ${ms.toFixed(0)}`);
      longestStep = Math.max(longestStep, ms);
    };
    let refreshMs = 0;
    const calls = await whileProbing(db, async () => {
      const t = performance.now();
      if (variant === 'before') await refreshBefore(db, onStep);
      else await db.refreshStatistics(onStep);
      refreshMs = performance.now() - t;
    });
    const { page } = services(db);
    const times: number[] = [];
    for (let q = 0; q < QUERIES; q += 1) {
      const s = performance.now();
      await page.search(user, { query: questions[(n * QUERIES + q) % questions.length] ?? 'x', kinds: ['event'], limit: 10 });
      times.push(performance.now() - s);
    }
    const result: Round = {
      variant,
      refreshMs,
      steps: steps.join(', ') || 'nothing',
      calls: calls.length,
      probeP50: median(calls),
      stall: Math.max(0, ...calls),
      longestStep,
      recallP50: median(times),
    };
    if (variant === 'before') return result;
    const v = performance.now();
    const vacuumed = await db.vacuumWhereNeeded();
    return { ...result, openVacuumMs: performance.now() - v, openVacuumed: vacuumed.join(', ') || 'nothing' };
  } finally {
    await stop();
  }
}

const cached = flags.snapshot;
let built: { snapshot: Blob; user: Principal };
if (cached && existsSync(cached) && existsSync(`${cached}.user`)) {
  built = { snapshot: await openAsBlob(cached), user: JSON.parse(readFileSync(`${cached}.user`, 'utf8')) as Principal };
  progress(`database read from ${cached}`);
} else {
  built = await build();
  if (cached) {
    // In slices: one write of the whole dump (2.4 GB at 50,000) is past what a single write takes.
    const file = openSync(cached, 'w');
    try {
      for (let at = 0; at < built.snapshot.size; at += 64 * 2 ** 20) {
        writeSync(file, Buffer.from(await built.snapshot.slice(at, at + 64 * 2 ** 20).arrayBuffer()));
      }
    } finally {
      closeSync(file);
    }
    writeFileSync(`${cached}.user`, JSON.stringify(built.user));
    built = { ...built, snapshot: await openAsBlob(cached) };
  }
}
const { snapshot, user } = built;
progress(`snapshot of ${(snapshot.size / 1e6).toFixed(0)} MB; ${ROUNDS} rounds of both variants, in turns`);
const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r += 1) {
  const order: Variant[] = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const variant of order) {
    const x = await round(snapshot, user, variant, r);
    rounds.push(x);
    console.log(
      `round ${r + 1} ${variant}: refresh ${x.refreshMs.toFixed(0)} ms (${x.steps} ms); other user's calls due during it ${x.calls}, ` +
        `wait p50 ${x.calls > 0 ? x.probeP50.toFixed(0) : '–'} ms, longest ${x.stall.toFixed(0)} ms; recall p50 after it ${x.recallP50.toFixed(1)} ms` +
        (x.openVacuumMs === undefined ? '' : `; the next open's VACUUM ${x.openVacuumMs.toFixed(0)} ms (${x.openVacuumed})`),
    );
  }
}
const of = (variant: Variant, pick: (x: Round) => number) => median(rounds.filter((x) => x.variant === variant).map(pick));
// A round in which no call fell due during the refresh says nothing about the wait: left out.
const waited = (variant: Variant) => median(rounds.filter((x) => x.variant === variant && x.calls > 0).map((x) => x.stall));
const stall = { before: waited('before'), after: waited('after') };
// What a call could wait at worst: the longest statement, or a longer wait if one was seen.
const worst = (variant: Variant) => of(variant, (x) => Math.max(x.stall, x.longestStep));
const bound = { before: worst('before'), after: worst('after') };
const shown = (ms: number) => (Number.isNaN(ms) ? 'no call fell due' : `${ms.toFixed(0)} ms`);
const recall = { before: of('before', (x) => x.recallP50), after: of('after', (x) => x.recallP50) };
console.log(`\nnpm run bench:refresh -- --size ${SIZE} --rounds ${ROUNDS} --queries ${QUERIES} (PGlite, medians over rounds)`);
console.log(`longest wait of a call due during the refresh: before ${shown(stall.before)}, after ${shown(stall.after)}`);
console.log(
  `longest statement of the refresh (the most a call can wait): before ${bound.before.toFixed(0)} ms, after ${bound.after.toFixed(0)} ms (budget ${BUDGET_MS} ms); after / before ${(bound.after / bound.before).toFixed(2)}`,
);
console.log(
  `median wait of those calls: before ${shown(median(rounds.filter((x) => x.variant === 'before' && x.calls > 0).map((x) => x.probeP50)))}, after ${shown(median(rounds.filter((x) => x.variant === 'after' && x.calls > 0).map((x) => x.probeP50)))}`,
);
console.log(
  `recall p50 after the refresh, ${SIZE} memories: before ${recall.before.toFixed(1)} ms, after ${recall.after.toFixed(1)} ms; after / before ${(recall.after / recall.before).toFixed(2)}`,
);
console.log(`VACUUM at the next open (no one served yet): ${of('after', (x) => x.openVacuumMs ?? 0).toFixed(0)} ms`);
console.log(
  bound.after <= BUDGET_MS
    ? `the refresh stays within ${BUDGET_MS} ms: no call can wait longer than ${bound.after.toFixed(0)} ms`
    : `over budget: a call can wait ${bound.after.toFixed(0)} ms during the refresh`,
);
