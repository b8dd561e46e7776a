/**
 * `npm run bench:import-cost -- [--memories 50000] [--engine pglite|postgres] [--url URL]`: what
 * `naaba import` costs per memory as the partition it writes into grows (issue 51, point 3).
 * `--memories` LoCoMo turns (one `event` each, made a second apart) in export files of 5,000 (the
 * most a file holds), imported one after the other into one user's partition the way `naaba
 * import` writes them when no server runs: the transfer service straight on the store, no call
 * bound, no rest between steps. Each file is a window: memories per second, ms per memory, and the
 * import statement's share (the check of the whole file, its steps, the last step); then the
 * growth of the last file over the first. Nothing here asserts a time.
 */
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { Principal } from '../lambda/memory/model.js';
import { memoryServices } from '../lambda/memory/services.js';
import { TRANSFER_LIMITS } from '../lambda/memory/transfer/transfer-file.js';
import { systemClock } from '../lambda/ports/clock.js';
import { exportDocument, exportedMemory } from '../test/support/export-file.js';
import { parseFlags } from '../test/support/jest-run.js';
import { BENCH_RULES, distinctTurns, LoadWindows, locomoTexts, openBenchEngine, printWindows, TimedSql } from './probe.js';

const USAGE = `usage: npm run bench:import-cost -- [--memories 50000] [--engine pglite|postgres] [--url URL]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster on loopback; --url uses an
existing PostgreSQL-wire database instead (a scratch one: the bench writes a new user into it).`;

const parsed = parseFlags(process.argv.slice(2), ['memories', 'engine', 'url']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const MEMORIES = Number(flags.memories ?? 50_000);
const FILE = TRANSFER_LIMITS.memories;
const DIMENSIONS = 256;
const REGION = 'eu-central-1';
/** The statement every step of an import runs (transfer/import-memories). */
const IMPORT_STATEMENT = 'transfer/import-memories';

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

/** Export files of `FILE` LoCoMo turns each, `n` in all, each turn an `event` made a second after the one before. */
function exportFiles(n: number) {
  const now = Date.now();
  const memories = distinctTurns(locomoTexts().turns, n).map((content, i) => ({
    ...exportedMemory(content, new Date(now - (n - i) * 1_000).toISOString()),
    kind: 'event',
  }));
  return Array.from({ length: Math.ceil(n / FILE) }, (_, f) =>
    exportDocument(memories.slice(f * FILE, (f + 1) * FILE), new Date(now).toISOString()),
  );
}

const engine = await openBenchEngine(flags);
try {
  await migrate(engine.sql, { embeddingDimensions: DIMENSIONS });
  const files = exportFiles(MEMORIES);
  console.log(
    `bench:import-cost  ${engine.label}  ${MEMORIES} LoCoMo turns imported into one partition in files of ${FILE}, as \`naaba import\` writes them without a server`,
  );
  const timed = new TimedSql(engine.sql);
  const transfer = memoryServices({
    stores: sqlMemoryStores(timed),
    embedder: new LocalEmbedder(DIMENSIONS),
    judge: new ExactOnlyJudge(),
    clock: systemClock,
    rules: BENCH_RULES,
  }).transfer;
  const principal: Principal = { userId: randomUUID(), region: REGION, agent: 'bench', keyId: randomUUID() };
  const statementMs = () => (timed.durationsOf.get(IMPORT_STATEMENT) ?? []).reduce((ms, d) => ms + d, 0);
  const windows = new LoadWindows(MEMORIES, progress);
  let done = 0;
  let steps = 0;
  for (const file of files) {
    const before = statementMs();
    const report = await transfer.importMemories(principal, file);
    done += report.written;
    steps += report.steps;
    windows.batch(done, statementMs() - before);
  }
  console.log(`  import of ${done} memories in ${files.length} files, ${steps} steps: ${windows.seconds().toFixed(1)} s`);
  printWindows(windows.windows);
  progress('done');
} finally {
  await engine.stop();
}
