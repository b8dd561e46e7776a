// `npm run bench:engine -- [--url URL] [--sizes 500,5000,50000] [--queries 100] [--overlap 50] [--rounds 3] [--writers 50] [--regions A,B] [--force yes]`
import type { DatabaseRegions } from '../lambda/adapters/pg/schema/migrate.js';
import { environment } from '../lambda/config/env.js';
import { parseFlags } from '../test/support/jest-run.js';
import { startPostgres } from '../test/support/pg-server.js';
import { redact } from '../test/store/url-harness.js';
import { type EngineFigures, NotScratchError, runEngineBench } from './engine-lib.js';

const USAGE = `usage: npm run bench:engine -- [--url URL] [--sizes 500,5000,50000] [--queries 100] [--overlap 50]
                              [--rounds 3] [--writers 50] [--regions PRIMARY,OTHER…] [--force yes]

The figures of our local benches, on the database a URL names: a CockroachDB v25.4+ cluster (what
production runs) or PostgreSQL 15+ with pgvector. Statements per tool call (bench:round-trips' paths)
and, on CockroachDB, the KV requests each sends; recall p50 at each partition size, the sizes
interleaved; busy and retry counts under concurrent writers (test:pg's contention rounds); and the
share of the exact 10 nearest that the engine's vector search returns. docs/benchmarks.md says what
to expect.
--url       a scratch database: the bench migrates it and writes tens of thousands of rows, then
            empties naaba's tables again (the schema stays). It refuses a database that holds other
            tables or naaba rows. Without --url it starts a throwaway PostgreSQL 15 + pgvector on
            loopback (initdb in a temporary folder) and removes it after.
--sizes     memories in the one partition recalled at each size (default 500,5000,50000)
--queries   timed recalls per size, after 10 untimed (default 100)
--overlap   queries compared with the exact 10 nearest, per size (default 50)
--rounds    contention rounds per scenario (default 3), each --writers concurrent remembers (default 50)
--regions   CockroachDB: the database's regions, primary first, as NAABA_DB_REGIONS (which is read
            when this is absent); one must be eu-central-1, where the bench's users live
--force yes write beside what a non-empty database holds: nothing is deleted, the bench's rows stay`;

const parsed = parseFlags(process.argv.slice(2), ['url', 'sizes', 'queries', 'overlap', 'rounds', 'writers', 'regions', 'force']);
const whole = (value: string | undefined, fallback: number) =>
  value === undefined ? fallback : /^\d+$/.test(value) ? Number(value) : Number.NaN;
const flags = typeof parsed === 'string' ? undefined : parsed;
const sizes = (flags?.sizes ?? '500,5000,50000').split(',').map((s) => whole(s, Number.NaN));
const numbers = {
  queries: whole(flags?.queries, 100),
  overlap: whole(flags?.overlap, 50),
  rounds: whole(flags?.rounds, 3),
  writers: whole(flags?.writers, 50),
};
const wrong =
  typeof parsed === 'string'
    ? parsed
    : sizes.some((s) => !(s >= 1)) || Object.values(numbers).some((n) => !(n >= 1))
      ? '--sizes, --queries, --overlap, --rounds and --writers take positive whole numbers'
      : flags?.force !== undefined && flags.force !== 'yes'
        ? '--force takes the word yes'
        : undefined;
if (wrong || !flags) {
  console.error(`${wrong}\n\n${USAGE}`);
  process.exit(2);
}

function regionsOf(list: string | undefined): DatabaseRegions | undefined {
  const [primary, ...others] = (list ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return primary ? { primary, others } : undefined;
}

function report(figures: EngineFigures, label: string): void {
  console.log(`\nbench:engine  ${label}`);
  console.log(
    '\n| tool call | statements | budget | KV writes | KV reads | ranges | table/index entries written | rows fetched |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const c of figures.calls) {
    const kv = c.kv
      ? `${c.kv.writes} | ${c.kv.reads} | ${c.kv.ranges} | ${c.kv.rowWrites} | ${c.kv.fetched}`
      : '– | – | – | – | –';
    console.log(`| ${c.call} | ${c.statements} | ≤ ${c.budget} | ${kv} |`);
  }
  if (figures.kvSkipped) console.log(`KV counts not taken: ${figures.kvSkipped}`);
  if (figures.calls.some((c) => c.kv && c.kv.writes === 0 && c.kv.rowWrites > 0)) {
    console.log(
      'KV writes and reads: the trace held no DistSender batch lines (rN: sending batch …), whose form may change between versions; only the SQL layer’s own lines were counted',
    );
  }
  console.log('\n| memories in one partition | recall p50 (ms) | vector search: exact 10 nearest kept |');
  console.log('| ---: | ---: | ---: |');
  for (const s of figures.sizes) {
    const every = s.overlapEveryCell === undefined ? '' : ` (every cell read: ${(100 * s.overlapEveryCell).toFixed(1)} %)`;
    console.log(`| ${s.size} | ${s.recallP50.toFixed(2)} | ${(100 * s.overlap).toFixed(1)} %${every} |`);
  }
  const [first] = figures.sizes;
  for (const s of figures.sizes.slice(1)) {
    if (first) console.log(`p50 at ${s.size} / p50 at ${first.size}: recall ${(s.recallP50 / first.recallP50).toFixed(2)}`);
  }
  console.log('\n| scenario | calls | succeeded | busy | other failures | serialization retries | violations |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of [...new Set(figures.contention.map((f) => f.scenario))]) {
    const rounds = figures.contention.filter((f) => f.scenario === scenario);
    const sum = (pick: (f: (typeof rounds)[number]) => number) => rounds.reduce((n, f) => n + pick(f), 0);
    console.log(
      `| ${scenario} | ${sum((f) => f.calls)} | ${sum((f) => f.succeeded)} | ${sum((f) => f.busy)} | ${sum((f) => f.failed)} | ${sum((f) => f.retries)} | ${sum((f) => f.violations.length)} |`,
    );
  }
  for (const v of figures.contention.flatMap((f) => f.violations)) console.log(`violation: ${v}`);
}

const started = Date.now();
const server = flags.url ? undefined : await startPostgres();
const url = flags.url ?? server?.url ?? '';
const label = server ? `${server.version}, a throwaway cluster on loopback` : redact(url);
console.error(`bench:engine: ${label}`);
try {
  const figures = await runEngineBench({
    url,
    sizes,
    queries: numbers.queries,
    overlapQueries: numbers.overlap,
    rounds: numbers.rounds,
    writers: numbers.writers,
    force: flags.force === 'yes',
    regions: regionsOf(flags.regions ?? environment().NAABA_DB_REGIONS),
    print: (line) => console.error(line),
  });
  report(figures, `${label} (${figures.engine}), ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
} catch (error) {
  if (!(error instanceof NotScratchError)) throw error;
  console.error(`bench:engine: ${error.message}`);
  process.exitCode = 2;
} finally {
  await server?.stop();
}
