// `npm run bench:passages -- [--users 20] [--memories 1000] [--long 0.2] [--engine pglite|postgres] [--url URL]`
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import { param, sql as sqlText } from '../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer, PASSAGE_TERMS } from '../lambda/memory/lexical.js';
import { PASSAGES_PAGE, Sweeper } from '../lambda/memory/maintenance/sweeper.js';
import type { Principal } from '../lambda/memory/model.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import type { MemoryStores } from '../lambda/ports/memory-stores.js';
import { parseFlags } from '../test/support/jest-run.js';
import { loadable } from './loadable.js';
import { BENCH_RULES, loadEvents, locomoTexts, openBenchEngine, TimedSql, whileProbing } from './probe.js';

/**
 * The sweeper's passages walk (decision 0119) over a region whose postings were stored without
 * passage masks, as a database from before migration 0021 holds them: `--users` users of
 * `--memories` memories each (LoCoMo turns; a `--long` share of them long, consecutive turns
 * joined to at least 400 terms), loaded in bulk with their masks and swept once (the postings'
 * flags ranked, as a running server's would be), then every mask cleared and the walk started
 * again. The sweep runs as the server's timer would, run after run until the walk is done, while a probe
 * user remembers and searches; the bench prints each run, then the walk's time, its slowest page
 * read and write, the probe's calls, and checks that every posting of a long memory got the mask
 * remember writes and that each user's search answers exactly as it did before the masks were
 * cleared. Exit status 1 when a check fails.
 */

const USAGE = `usage: npm run bench:passages -- [--users 20] [--memories 1000] [--long 0.2] [--engine pglite|postgres] [--url URL]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster on loopback; --url uses an
existing PostgreSQL-wire database instead (a scratch one: the bench writes naaba tables).`;

const parsed = parseFlags(process.argv.slice(2), ['users', 'memories', 'long', 'engine', 'url']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const USERS = Number(flags.users ?? 20);
const MEMORIES = Number(flags.memories ?? 1000);
const LONG = Number(flags.long ?? 0.2);
if (![USERS, MEMORIES].every((n) => Number.isInteger(n) && n >= 1) || !(LONG > 0 && LONG <= 1)) {
  console.error(`--users and --memories take positive whole numbers, --long a share above 0 and at most 1\n\n${USAGE}`);
  process.exit(2);
}
const DIMENSIONS = 256;
const REGION = 'eu-central-1';
const LOAD_BATCH = 100;
/** The sweep's bounds as the server's defaults set them (NAABA_SWEEP_BATCH, NAABA_SWEEP_MAX_BATCHES). */
const SWEEP = { batchSize: 500, maxBatches: 200 };
/** Partitions stay under VECTOR_CELLS.from: none gets cells, so the sweep's work is the walk's. */
const RULES = BENCH_RULES;
/** Searches per user compared before and after. */
const SEARCHES = 10;

const { turns, questions } = locomoTexts();
const analyzer = new LexicalAnalyzer();
const termsOf = (text: string) => [...analyzer.frequencies(text).values()].reduce((sum, n) => sum + n, 0);

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** Memory `j` of user `u`: a turn, or every 1/LONG-th one consecutive turns joined past 400 terms. Unique per user. */
function content(u: number, j: number): string {
  const at = (u * MEMORIES + j) * 7;
  if (Math.floor(j * LONG) === Math.floor((j + 1) * LONG)) return `${turns[at % turns.length] ?? ''} (${j})`;
  const parts: string[] = [];
  for (let k = 0; termsOf(parts.join(' ')) < 400; k += 1) parts.push(turns[(at + k) % turns.length] ?? '');
  return `${parts.join(' ')} (${j})`;
}

async function load(stores: MemoryStores): Promise<Principal[]> {
  const embedder = new LocalEmbedder(DIMENSIONS);
  const users: Principal[] = [];
  for (let u = 0; u < USERS; u += 1) {
    const user: Principal = { userId: randomUUID(), region: REGION, agent: 'bench', keyId: randomUUID() };
    for (let i = 0; i < MEMORIES; i += LOAD_BATCH) {
      const memories = [];
      for (let j = i; j < Math.min(MEMORIES, i + LOAD_BATCH); j += 1) {
        const text = content(u, j);
        memories.push({ ...(await loadable(text, embedder, analyzer)), passages: analyzer.passages(text) });
      }
      await loadEvents(stores, { region: REGION, userId: user.userId }, memories);
    }
    users.push(user);
    if ((u + 1) % 5 === 0 || u + 1 === USERS) progress(`${(u + 1) * MEMORIES} of ${USERS * MEMORIES} memories stored`);
  }
  return users;
}

/** Each user's top 10 for SEARCHES questions, as the page's search gives them (no touch: a search is not a recall). */
async function searches(stores: MemoryStores, users: readonly Principal[]): Promise<string[]> {
  const { page } = memoryServices({
    stores,
    embedder: new LocalEmbedder(DIMENSIONS),
    judge: new ExactOnlyJudge(),
    clock: systemClock,
    rules: RULES,
  });
  const answers: string[] = [];
  for (const [u, user] of users.entries()) {
    for (let q = 0; q < SEARCHES; q += 1) {
      const query = questions[(u * SEARCHES + q) % questions.length] ?? 'what';
      const found = await page.search(user, { query, kinds: ['event'], limit: 10 });
      answers.push(found.map((m) => m.id).join(','));
    }
  }
  return answers;
}

const { sql, label, stop } = await openBenchEngine(flags);
let failed = true;
try {
  progress(`${label}: ${USERS} users of ${MEMORIES} memories, ${(LONG * 100).toFixed(0)} % of them over ${PASSAGE_TERMS} terms`);
  await migrate(sql, { embeddingDimensions: DIMENSIONS });
  const stores = sqlMemoryStores(sql);
  const users = await load(stores);
  await (sql instanceof PgliteSqlClient ? sql.refreshStatistics() : sql.exec('ANALYZE'));
  // The sweep a running server would have made since (the postings' flags ranked): the timed sweeps
  // below then do the walk's work only. It walks the masks it finds too, and ends the walk.
  const settling = new TimedSql(sql);
  const settle = new Sweeper(sqlMemoryStores(settling).maintenance, RULES, systemClock, analyzer);
  while ((await settle.run(REGION, SWEEP)).incomplete) progress('settling sweep: more to do');
  const settled = `${settling.statements} statements, the slowest ${settling.slowest.ms.toFixed(0)} ms (${settling.slowest.name})`;
  progress(`settling sweep done: ${settled}`);
  const onePassage = param('terms', PASSAGE_TERMS);
  const ofLong = sqlText`FROM memory_terms AS t JOIN memories AS m ON m.region = t.region AND m.id = t.memory_id
    WHERE m.term_count > ${onePassage}::int4`;
  const [postings] = await sql.query<{ n: string }>(sqlText`SELECT count(*) AS n ${ofLong}`);
  const [long] = await sql.query<{ n: string }>(
    sqlText`SELECT count(*) AS n FROM memories WHERE term_count > ${onePassage}::int4`,
  );
  const expected = Number(postings?.n ?? 0);
  const before = await searches(stores, users);
  await sql.exec('UPDATE memory_terms SET passages = NULL');
  // And the walk starts again, as it does on a database migrated past 0023 (decision 0119).
  await sql.exec(`UPDATE sweeper_state SET value = NULL WHERE name = 'passages'`);
  // No statistics refresh after it: the planner still thinks every posting has a mask, the worst
  // case for the walk's writes (decision 0119).
  const without = await searches(stores, users);
  const changed = without.filter((a, i) => a !== before[i]).length;
  progress(
    `masks cleared on ${expected} postings of ${long?.n} long memories: ${changed} of ${before.length} searches answer otherwise`,
  );

  // PostgreSQL 17 (PGlite) counts checkpoints in pg_stat_checkpointer, 15 in pg_stat_bgwriter.
  const checkpoints = async () =>
    (
      await sql
        .query<{ n: string }>(sqlText`SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer`)
        .catch(() => sql.query<{ n: string }>(sqlText`SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter`))
    )[0]?.n;
  const checkpointsBefore = Number(await checkpoints());
  const timed = new TimedSql(sql);
  const sweeper = new Sweeper(sqlMemoryStores(timed).maintenance, RULES, systemClock, analyzer);
  let written = 0;
  let runs = 0;
  const t = performance.now();
  const calls = await whileProbing(
    stores,
    async () => {
      for (let incomplete = true; incomplete; runs += 1) {
        let walked = 0;
        const run = await sweeper.run(REGION, {
          ...SWEEP,
          onBatch: (step) => {
            if (step.phase === 'passages') walked += step.count;
          },
        });
        written += run.passages;
        incomplete = run.incomplete;
        progress(
          `sweep ${runs + 1}: ${walked} memories walked, ${run.passages} masks written${incomplete ? ', walk goes on' : ''}`,
        );
      }
    },
    // The first 30 s of the walk: a probe that calls without pause holds the walk to about a statement a second (decision 0161).
    { region: REGION, rules: RULES, dimensions: DIMENSIONS, turns, questions, forMs: 30_000 },
  );
  const walkMs = performance.now() - t;
  const checkpointed = Number(await checkpoints()) - checkpointsBefore;
  const [left] = await sql.query<{ n: string }>(sqlText`SELECT count(*) AS n ${ofLong} AND t.passages IS NULL`);
  const after = await searches(stores, users);
  const differ = after.filter((a, i) => a !== before[i]).length;
  const slowest = (name: string) => (timed.slowestOf.get(name) ?? 0).toFixed(0);
  const spread = (name: string) => {
    const ms = [...(timed.durationsOf.get(name) ?? [])].sort((a, b) => a - b);
    const at = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? Number.NaN).toFixed(1);
    return `${ms.length} × ${name}: p50 ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)} ms, ${ms.filter((m) => m > 200).length} over 200 ms`;
  };

  console.log(
    `\nnpm run bench:passages -- --users ${USERS} --memories ${MEMORIES} --long ${LONG}${flags.engine ? ` --engine ${flags.engine}` : ''}`,
  );
  console.log(`  ${label}; ${USERS * MEMORIES} memories, ${long?.n} over ${PASSAGE_TERMS} terms with ${expected} postings`);
  console.log(`  the sweep after the bulk load (ranks its postings, before the masks are cleared): ${settled}`);
  console.log(
    `  walk: ${runs} sweeps (${Math.min(SWEEP.batchSize, PASSAGES_PAGE)} memories a page, ${SWEEP.maxBatches} pages a sweep) in ${(walkMs / 1000).toFixed(1)} s, ${timed.statements} statements`,
  );
  console.log(
    `  slowest page read ${slowest('maintenance/passages-page')} ms, slowest write ${slowest('maintenance/passages-write')} ms; slowest statement of the sweeps ${timed.slowest.ms.toFixed(0)} ms (${timed.slowest.name})`,
  );
  console.log(`  ${spread('maintenance/passages-page')}`);
  console.log(`  ${spread('maintenance/passages-write')}`);
  console.log(`  checkpoints during the walk: ${checkpointed}`);
  console.log(
    `  other user's calls in the walk's first 30 s: ${calls.length}, p50 ${median(calls).toFixed(1)} ms, slowest ${Math.max(...calls).toFixed(0)} ms`,
  );
  console.log(`  masks written ${written} of ${expected}; postings of long memories still without one: ${left?.n}`);
  console.log(
    `  searches answering as before the masks were cleared: ${after.length - differ} of ${after.length} (without masks: ${before.length - changed})`,
  );
  failed = written !== expected || Number(left?.n) !== 0 || differ > 0;
  if (failed)
    console.log('  FAILED: the walk must give every posting of a long memory its mask, and search must answer as before');
} finally {
  await stop();
}
process.exit(failed ? 1 : 0);
