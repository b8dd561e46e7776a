/**
 * `npm run bench:import-cost -- [--memories 50000] [--engine pglite|postgres] [--url URL]`: what
 * `naaba import` costs per memory as the partition it writes into grows (issue 51, point 3).
 * `--memories` LoCoMo turns (one `event` each, made a second apart) in export files of 5,000 (the
 * most a file holds), imported one after the other into one user's partition the way `naaba
 * import` writes them when no server runs: the transfer service straight on the store, no call
 * bound, no rest between steps; on PGlite each file opens the folder again, as each `naaba import`
 * does (its shared buffers sized to the data then, statistics kept current), and on PostgreSQL
 * each file starts on fresh statistics, as autovacuum keeps them. Each file is a window:
 * memories per second, ms per memory, and the import statement's share (the check of the whole
 * file, its steps, the last step); then the growth of the last file over the first. Nothing here
 * asserts a time.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { chooseBuffers } from '../lambda/adapters/pg/pglite-buffers.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { STATISTICS_EVERY_MS } from '../lambda/composition.js';
import type { Principal } from '../lambda/memory/model.js';
import { memoryServices } from '../lambda/memory/services.js';
import { TRANSFER_LIMITS } from '../lambda/memory/transfer/transfer-file.js';
import { systemClock } from '../lambda/ports/clock.js';
import { exportDocument, exportedMemory } from '../test/support/export-file.js';
import {
  BENCH_RULES,
  benchFlags,
  distinctTurns,
  LoadWindows,
  locomoTexts,
  openBenchEngine,
  printWindows,
  TimedSql,
} from './probe.js';

const USAGE = `usage: npm run bench:import-cost -- [--memories 50000] [--engine pglite|postgres] [--url URL]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster on loopback; --url uses an
existing PostgreSQL-wire database instead (a scratch one: the bench writes a new user into it).`;

const { flags } = benchFlags(process.argv.slice(2), ['memories', 'url'], USAGE);
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

/** Where the files go: a database open for the whole run, or a PGlite folder opened for each file. */
interface Target {
  readonly label: string;
  /** The database for the next file, and what to do once it is imported. */
  open(): Promise<{ sql: SqlClient; done: () => Promise<void> }>;
  /** What the database does on its own between two imports (untimed). */
  between?(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A PGlite folder opened for each file as `naaba import` opens it (composition.ts `openSql`). Its
 * database is created first, untimed: what a file costs is its import into a folder that exists.
 */
async function pgliteFolder(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-bench-'));
  const created = await PgliteSqlClient.open(dir);
  await migrate(created, { embeddingDimensions: DIMENSIONS });
  await created.close();
  return {
    label: 'PGlite in a data folder, opened for each file',
    async open() {
      const buffers = chooseBuffers(dir).mb;
      const sql = await PgliteSqlClient.open(dir);
      await migrate(sql, { embeddingDimensions: DIMENSIONS });
      await sql.keepStatisticsCurrent(STATISTICS_EVERY_MS);
      progress(`the folder opened with ${buffers} MB of shared buffers`);
      return { sql, done: () => sql.close() };
    },
    async stop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A server's database, open for the whole run. Between two files its statistics are refreshed,
 * untimed, as autovacuum does in the background: planned on the statistics of a partition a fifth
 * of its size, a step reads the partition instead of the fingerprint index (decision 0159).
 */
async function serverDatabase(): Promise<Target> {
  const engine = await openBenchEngine(flags);
  await migrate(engine.sql, { embeddingDimensions: DIMENSIONS });
  return {
    label: engine.label,
    open: async () => ({ sql: engine.sql, done: async () => {} }),
    between: () => engine.sql.exec('ANALYZE'),
    stop: engine.stop,
  };
}

const openTarget = (): Promise<Target> => (!flags.url && flags.engine !== 'postgres' ? pgliteFolder() : serverDatabase());

const target = await openTarget();
try {
  const files = exportFiles(MEMORIES);
  console.log(
    `bench:import-cost  ${target.label}  ${MEMORIES} LoCoMo turns imported into one partition in files of ${FILE}, as \`naaba import\` writes them without a server`,
  );
  const principal: Principal = { userId: randomUUID(), region: REGION, agent: 'bench', keyId: randomUUID() };
  const windows = new LoadWindows(MEMORIES, progress);
  let done = 0;
  let steps = 0;
  for (const file of files) {
    const between = target.between;
    if (done > 0 && between) await windows.untimed(between);
    const { sql, done: close } = await target.open();
    const timed = new TimedSql(sql);
    const transfer = memoryServices({
      stores: sqlMemoryStores(timed),
      embedder: new LocalEmbedder(DIMENSIONS),
      judge: new ExactOnlyJudge(),
      clock: systemClock,
      rules: BENCH_RULES,
    }).transfer;
    const report = await transfer.importMemories(principal, file);
    await close();
    done += report.written;
    steps += report.steps;
    windows.batch(
      done,
      (timed.durationsOf.get(IMPORT_STATEMENT) ?? []).reduce((ms, d) => ms + d, 0),
    );
  }
  console.log(`  import of ${done} memories in ${files.length} files, ${steps} steps: ${windows.seconds().toFixed(1)} s`);
  printWindows(windows.windows);
  progress('done');
} finally {
  await target.stop();
}
