// `npm run bench:pglite-files -- [--megabytes 600] [--rows 5000]`
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { parseFlags } from '../test/support/jest-run.js';
import { openScratchPglite } from './probe.js';

/**
 * Why every bench that times PGlite runs it in a data folder (decision 0121). Two PGlite databases
 * in this process, one in memory (`memory://`, what the tests use) and one in a data folder (what
 * `naaba serve` uses), each fill a table by the same inserts of `--rows` rows of about 900 bytes,
 * taking turns statement by statement so that the machine's load falls on both alike, until the
 * table holds `--megabytes`. The bench prints each database's statement durations (p50, slowest,
 * how many over 200 ms) and, for the one in memory, how long its file system took each time it
 * grew a file (an engine internal, read by wrapping Emscripten's MEMFS `expandFileStorage`).
 */

const USAGE = 'usage: npm run bench:pglite-files -- [--megabytes 600] [--rows 5000]';
const flags = parseFlags(process.argv.slice(2), ['megabytes', 'rows']);
if (typeof flags === 'string') {
  console.error(`${flags}\n\n${USAGE}`);
  process.exit(2);
}
const MEGABYTES = Number(flags.megabytes ?? 600);
const ROWS = Number(flags.rows ?? 5000);
if (![MEGABYTES, ROWS].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error(`--megabytes and --rows take positive whole numbers\n\n${USAGE}`);
  process.exit(2);
}
const BUDGET_MS = 200;
const ROW_BYTES = 900;

interface Growth {
  readonly file: string;
  readonly bytes: number;
  readonly ms: number;
}

/** Emscripten's in-memory file system, as PGlite 0.5 keeps it on its module (not a public API). */
interface Memfs {
  expandFileStorage(node: { name: string; contents: Uint8Array }, capacity: number): void;
}

/** Times every growth of a file in `db`'s in-memory file system. */
function watchGrowth(db: PgliteSqlClient): Growth[] {
  const wasm = (db.db as unknown as { mod?: { FS: { filesystems: { MEMFS?: Memfs } } } }).mod;
  const memfs = wasm?.FS.filesystems.MEMFS;
  if (!memfs) throw new Error('this PGlite keeps no MEMFS where 0.5 did: update the bench');
  const grow = memfs.expandFileStorage;
  const growths: Growth[] = [];
  memfs.expandFileStorage = function (this: Memfs, node, capacity) {
    const t = performance.now();
    grow.call(this, node, capacity);
    growths.push({ file: node.name, bytes: node.contents.length, ms: performance.now() - t });
  };
  return growths;
}

const started = Date.now();
const progress = (line: string) => process.stderr.write(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${line}\n`);
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;
const describe = (ms: readonly number[]) =>
  `${ms.length} statements, p50 ${quantile(ms, 0.5).toFixed(0)} ms, slowest ${Math.max(...ms).toFixed(0)} ms, ${ms.filter((m) => m > BUDGET_MS).length} over ${BUDGET_MS} ms`;

const inMemory = await PgliteSqlClient.open();
const inFolder = await openScratchPglite();
try {
  const growths = watchGrowth(inMemory);
  const databases = [
    { name: 'memory://', sql: inMemory, ms: [] as number[] },
    { name: 'a data folder', sql: inFolder.sql, ms: [] as number[] },
  ];
  const fill = `INSERT INTO filler SELECT g, repeat('x', ${ROW_BYTES}) FROM generate_series(1, ${ROWS}) AS g`;
  for (const { sql } of databases) await sql.exec('CREATE TABLE filler (id int4, pad text)');
  const statements = Math.ceil((MEGABYTES * 1024 * 1024) / (ROWS * ROW_BYTES));
  for (let i = 0; i < statements; i += 1) {
    for (const { sql, ms } of databases) {
      const t = performance.now();
      await sql.exec(fill);
      ms.push(performance.now() - t);
    }
    if ((i + 1) % 20 === 0) progress(`${i + 1} of ${statements} inserts into each database`);
  }
  console.log(`\nnpm run bench:pglite-files -- --megabytes ${MEGABYTES} --rows ${ROWS}`);
  console.log(`  each database: ${statements} inserts of ${ROWS} rows of ${ROW_BYTES} bytes, taking turns`);
  for (const { name, ms } of databases) console.log(`  PGlite in ${name}: ${describe(ms)}`);
  const slow = growths.filter((g) => g.ms > BUDGET_MS);
  const slowest = growths.reduce<Growth | undefined>((a, g) => (a && a.ms >= g.ms ? a : g), undefined);
  console.log(
    `  memory://'s file system grew a file ${growths.length} times, ${slow.length} of them over ${BUDGET_MS} ms` +
      (slowest
        ? `; slowest ${slowest.ms.toFixed(0)} ms, to ${(slowest.bytes / 1024 / 1024).toFixed(0)} MB (${slowest.file})`
        : ''),
  );
} finally {
  await inMemory.close();
  await inFolder.stop();
}
