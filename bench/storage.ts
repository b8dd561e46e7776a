/**
 * `npm run bench:storage [-- --engine pglite|postgres --sizes 5000,50000]`: what one memory costs on
 * disk. For each size, a fresh database holds one user's partition of that many LoCoMo turns, loaded
 * in bulk (`TransferStore.load`, what a remember writes, many per statement); the sweep runs until it
 * has nothing left to do (cells, posting ranks, passages), as the server's timer would, then the
 * statistics are refreshed and a CHECKPOINT is taken. Prints bytes per memory of each table (heap
 * with its TOAST and maps) and each index, the postings per memory, the write-ahead log left after
 * the checkpoint, the database's size, and the whole data folder on disk as a user sees it (every
 * file under it, as `du` counts them: the database, PostgreSQL's templates and catalogs, the log),
 * with whether a folder of 50,000 or more memories is within `FOLDER_BOUND` (issue 51, point 4). On
 * PostgreSQL the folder is the throwaway cluster's data directory, with the server's default log
 * settings.
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { sql as sqlText } from '../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { Sweeper } from '../lambda/memory/maintenance/sweeper.js';
import { systemClock } from '../lambda/ports/clock.js';
import { parseFlags } from '../test/support/jest-run.js';
import { BENCH_RULES, locomoTexts, loadTurns, openBenchEngine } from './probe.js';

const USAGE = `usage: npm run bench:storage -- [--sizes 5000,50000] [--engine pglite|postgres]
--engine postgres starts a throwaway PostgreSQL 15 + pgvector cluster on loopback.`;

const parsed = parseFlags(process.argv.slice(2), ['sizes', 'engine']);
if (typeof parsed === 'string' || (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine))) {
  console.error(`${typeof parsed === 'string' ? parsed : '--engine is pglite or postgres'}\n\n${USAGE}`);
  process.exit(2);
}
const flags = parsed;
const SIZES = (parsed.sizes ?? '5000,50000').split(',').map(Number);
if (SIZES.some((s) => !Number.isInteger(s) || s <= 0)) {
  console.error(`--sizes is a comma-separated list of whole numbers of memories\n\n${USAGE}`);
  process.exit(2);
}
/** The local server's embedder size when no setting names another (`NAABA_EMBEDDER` unset). */
const DIMENSIONS = 256;
const REGION = 'eu-central-1';
const LOAD_BATCH = 100;
/** Sweeps at most; one with room enough finishes what is due (`incomplete` false). */
const SWEEPS = 20;

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

interface Relation {
  readonly name: string;
  /** `table` (heap, TOAST, free-space and visibility maps) or the table an index is on. */
  readonly of: string;
  readonly bytes: number;
}

interface Measured {
  readonly size: number;
  readonly relations: readonly Relation[];
  readonly postings: number;
  readonly walBytes: number;
  readonly databaseBytes: number;
  /** Every file under the data folder, as allocated on disk; null when the engine's folder is not on this machine. */
  readonly folderBytes: number | null;
}

/** The most a data folder of 50,000 memories may hold after a checkpoint (issue 51, point 4): 1 GB. */
const FOLDER_BOUND = 1024 ** 3;
const BOUND_FROM = 50_000;

/** The bytes allocated on disk to every file under `dir`, as `du` counts them (files that vanish while read count nothing). */
function bytesOnDisk(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesOnDisk(path);
    else total += (lstatSync(path, { throwIfNoEntry: false })?.blocks ?? 0) * 512;
  }
  return total;
}

/** naaba's tables and their indexes, with their sizes on disk. */
async function relations(sql: SqlClient): Promise<Relation[]> {
  const rows = await sql.query<{ name: string; of: string; bytes: string }>(
    sqlText`SELECT c.relname AS name, 'table' AS of, pg_table_size(c.oid)::text AS bytes
              FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
             WHERE n.nspname = current_schema() AND c.relkind = 'r'
            UNION ALL
            SELECT i.relname, t.relname, pg_relation_size(i.oid)::text
              FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid JOIN pg_class AS t ON t.oid = x.indrelid
              JOIN pg_namespace AS n ON n.oid = t.relnamespace
             WHERE n.nspname = current_schema()`,
  );
  return rows.map((r) => ({ name: r.name, of: r.of, bytes: Number(r.bytes) }));
}

async function measure(size: number): Promise<Measured> {
  const engine = await openBenchEngine(flags);
  try {
    const sql = engine.sql;
    await migrate(sql, { embeddingDimensions: DIMENSIONS });
    const stores = sqlMemoryStores(sql);
    const analyzer = new LexicalAnalyzer();
    const scope = { region: REGION, userId: randomUUID() };
    progress(`${engine.label}: loading ${size.toLocaleString('en')} memories`);
    await loadTurns(stores, scope, locomoTexts().turns, size, {
      embedder: new LocalEmbedder(DIMENSIONS),
      analyzer,
      batch: LOAD_BATCH,
      progress,
    });
    const sweeper = new Sweeper(stores.maintenance, BENCH_RULES, systemClock, analyzer);
    for (let i = 0; i < SWEEPS; i += 1) {
      if (!(await sweeper.run(REGION, { batchSize: 500, maxBatches: 1000 })).incomplete) break;
    }
    progress('swept; refreshing statistics and taking a checkpoint');
    await sql.exec('ANALYZE');
    await sql.exec('CHECKPOINT');
    const [counts] = await sql.query<{ postings: string; wal: string; database: string }>(
      sqlText`SELECT (SELECT count(*) FROM memory_terms)::text AS postings,
                     (SELECT COALESCE(sum(size), 0) FROM pg_ls_waldir())::text AS wal,
                     pg_database_size(current_database())::text AS database`,
    );
    return {
      size,
      relations: await relations(sql),
      postings: Number(counts?.postings ?? 0),
      walBytes: Number(counts?.wal ?? 0),
      databaseBytes: Number(counts?.database ?? 0),
      folderBytes: engine.dir ? bytesOnDisk(engine.dir) : null,
    };
  } finally {
    await engine.stop();
  }
}

/** A relation of one page or none holds no memory's data: left out of the table (still in its total). */
const PAGE = 8192;
const perMemory = (bytes: number, size: number) => (bytes / size).toFixed(0);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const runs: Measured[] = [];
  for (const size of SIZES) runs.push(await measure(size));
  const names = [
    ...new Set(runs.flatMap((r) => r.relations.filter((x) => x.bytes > PAGE).map((x) => `${x.of}\u0000${x.name}`))),
  ].sort();
  const bytesOf = (run: Measured, key: string) => run.relations.find((x) => `${x.of}\u0000${x.name}` === key)?.bytes ?? 0;
  console.log(`bench:storage  ${flags.engine ?? 'pglite'}, ${DIMENSIONS}-dimension embeddings, LoCoMo turns in one partition`);
  console.log(`| relation | on | ${runs.map((r) => `bytes / memory at ${r.size.toLocaleString('en')}`).join(' | ')} |`);
  console.log(`| --- | --- | ${runs.map(() => '---:').join(' | ')} |`);
  for (const key of names) {
    const [of, name] = key.split('\u0000');
    console.log(
      `| ${name} | ${of === 'table' ? 'table' : `index on ${of}`} | ${runs.map((r) => perMemory(bytesOf(r, key), r.size)).join(' | ')} |`,
    );
  }
  const total = (r: Measured) => r.relations.reduce((a, x) => a + x.bytes, 0);
  console.log(`| **every table and index** | | ${runs.map((r) => `**${perMemory(total(r), r.size)}**`).join(' | ')} |`);
  console.log(`| postings per memory | | ${runs.map((r) => (r.postings / r.size).toFixed(1)).join(' | ')} |`);
  console.log(`| write-ahead log after the checkpoint (MB) | | ${runs.map((r) => mb(r.walBytes)).join(' | ')} |`);
  console.log(`| database (MB) | | ${runs.map((r) => mb(r.databaseBytes)).join(' | ')} |`);
  console.log(`| database and log (MB) | | ${runs.map((r) => mb(r.databaseBytes + r.walBytes)).join(' | ')} |`);
  const folder = (r: Measured) => {
    if (r.folderBytes === null) return 'not on this machine';
    const within = r.folderBytes <= FOLDER_BOUND ? 'within' : '**over**';
    return r.size >= BOUND_FROM ? `${mb(r.folderBytes)} (${within} 1 GB)` : mb(r.folderBytes);
  };
  console.log(`| data folder on disk after the checkpoint (MB) | | ${runs.map(folder).join(' | ')} |`);
  // The bound is a data folder's (PGlite's); a PostgreSQL cluster's log is its operator's to size.
  const over = runs.some((r) => r.size >= BOUND_FROM && r.folderBytes !== null && r.folderBytes > FOLDER_BOUND);
  if (over && (flags.engine ?? 'pglite') === 'pglite') process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
