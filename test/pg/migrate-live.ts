// `npm run test:migrate-live -- [--rows N] [--url URL] [--batch N] [--writers N] [--readers N]`:
// migrations applied in batches to a populated PostgreSQL while traffic runs (decision 0099).
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { parseFlags } from '../support/jest-run.js';
import { startPostgres } from '../support/pg-server.js';
import { redact } from '../store/url-harness.js';
import { FIRST_LIVE_MIGRATION, LIVE_DIMENSIONS, liveMigrationReport, runLiveMigration } from './live-migration.js';

const USAGE = `usage: npm run test:migrate-live -- [--rows 1000000] [--url URL] [--batch 5000] [--writers 4] [--readers 4]

Builds a PostgreSQL database at the schema before ${FIRST_LIVE_MIGRATION}, loads --rows memories in
bulk (generate_series; embedding dimension ${LIVE_DIMENSIONS}, so that a million rows fit), then applies
every later migration with the batched runner (--batch rows per backfill batch) while --writers
and --readers call it with statements of that older schema. Prints progress, then the figures:
backfill batches and their durations, call latencies against the batch duration, and the checks
(nothing lost, every place as the single statement gives it, partition counts exact, no call
failed). Exit status 1 when a check fails.
--url: an empty scratch database instead of a throwaway cluster started here (initdb, pg_ctl).`;

const options = parseFlags(process.argv.slice(2), ['rows', 'url', 'batch', 'writers', 'readers']);
const whole = (text: string | undefined, fallback: number) =>
  text === undefined ? fallback : /^\d+$/.test(text) ? Number(text) : Number.NaN;
if (typeof options === 'string') {
  console.error(`${options}\n\n${USAGE}`);
  process.exit(2);
}
const rows = whole(options.rows, 1_000_000);
const batchRows = whole(options.batch, 5_000);
const writers = whole(options.writers, 4);
const readers = whole(options.readers, 4);
if (![rows, batchRows, writers, readers].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error(`--rows, --batch, --writers and --readers take positive whole numbers\n\n${USAGE}`);
  process.exit(2);
}

const server = options.url ? undefined : await startPostgres();
const url = options.url ?? server?.url ?? '';
console.log(`PostgreSQL: ${server ? `${server.version}, a throwaway cluster` : redact(url)}`);
const migrator = await PgSqlClient.connect({ url, maxConnections: 2, statementTimeoutMs: 3_600_000 });
const traffic = await PgSqlClient.connect({ url, maxConnections: writers + readers, statementTimeoutMs: 60_000 });
let failed = true;
try {
  const [taken] = await migrator.query<{ found: boolean }>({
    text: "SELECT to_regclass('naaba_migrations') IS NOT NULL AS found",
    values: [],
  });
  if (taken?.found) throw new Error('the database already has naaba tables: give an empty scratch database');
  const figures = await runLiveMigration(migrator, traffic, {
    rows,
    batchRows,
    writers,
    readers,
    say: (line) => console.log(line),
  });
  console.log(`\nnpm run test:migrate-live -- --rows ${rows} --batch ${batchRows} --writers ${writers} --readers ${readers}`);
  for (const line of liveMigrationReport(figures)) console.log(line);
  failed =
    figures.failed > 0 ||
    figures.lost !== 0 ||
    figures.misplaced > 0 ||
    figures.placeClashes > 0 ||
    figures.partitionMismatches > 0 ||
    figures.unplaced > figures.inFlightAtBackfillEnd;
  console.log(failed ? 'FAILED: a check above is not met' : 'all checks met');
} finally {
  await migrator.close();
  await traffic.close();
  await server?.stop();
}
process.exit(failed ? 1 : 0);
