import { randomUUID } from 'node:crypto';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { schemaDimensions } from '../../lambda/adapters/pg/schema/facts.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { type Representative, type RuntimeQuery, runtimeQueries } from './catalogue.js';
import { cockroachSchemaVerdict } from './schema.js';
import { seedRepresentative } from './seed.js';
import { type PlanReport, renderReport, verifyPlans } from './verify.js';

export const USAGE = `usage: npm run verify:plan -- [--url URL [--seed] [--region R]] [--verbose]

Runs EXPLAIN on every runtime query of the memory and key stores and fails unless each plan
holds (docs/index-compatibility.md):
  CockroachDB  vector reads show "vector search", vector writes "vector mutation search",
               and no memory or key query shows a FULL SCAN; the batches read the index
               they name, remember joins no index back; memories keyed (region, user_id,
               kind, id), the old key kept as memories_id only, links referencing it
               (SHOW INDEXES / SHOW CONSTRAINTS; decision 0098);
  PostgreSQL   per-user queries go through the (user_id, kind) index, none scans a user table.
Every engine: ANN reads filter on the vector-index prefix (region, user_id, kind) and nothing else.

  (no --url)   in-memory PGlite, migrated and seeded with representative rows
  --url URL    a migrated PostgreSQL or CockroachDB database; EXPLAIN only, nothing is written
  --seed       with --url: write representative rows first, refresh statistics, delete them after
               (for a scratch database: the new statistics stay)
  --region R   the region of the representative calls (default: the database's primary region)
  --verbose    print every plan, not only the failing ones`;

interface Options {
  readonly url: string | undefined;
  readonly seed: boolean;
  readonly region: string | undefined;
  readonly verbose: boolean;
}

function parse(argv: readonly string[]): Options | string {
  let url: string | undefined;
  let region: string | undefined;
  let seed = false;
  let verbose = false;
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--url') url = value();
    else if (flag === '--region') region = value();
    else if (flag === '--seed') seed = true;
    else if (flag === '--verbose') verbose = true;
    else return `unknown argument ${argv[i]}`;
  }
  if ((url === '' || region === '') ?? false) return 'an option is missing its value';
  if (seed && !url) return '--seed goes with --url (the local engine is always seeded)';
  return { url, seed, region, verbose };
}

async function primaryRegion(db: SqlClient): Promise<string> {
  if (db.engine !== 'cockroach') return 'verify-plan';
  const rows = await db.query<{ region: string }>(sql`SELECT region FROM [SHOW REGIONS FROM DATABASE] WHERE "primary"`);
  const region = rows[0]?.region;
  if (!region) throw new Error('the database has no primary region: is it migrated (npm run test:store -- --url …)?');
  return region;
}

/** Verifies on the local engine: a fresh in-memory PGlite, migrated and seeded. */
async function local(extra: readonly RuntimeQuery[]): Promise<PlanReport> {
  const db = await PgliteSqlClient.open();
  try {
    const dimensions = 256;
    await migrate(db, { embeddingDimensions: dimensions });
    const rep: Representative = { region: 'local', userId: randomUUID(), dimensions, now: new Date() };
    await seedRepresentative(db, rep);
    return await verifyPlans(db, [...(await runtimeQueries(rep, db.engine)), ...extra]);
  } finally {
    await db.close();
  }
}

async function remote(options: Options & { url: string }, extra: readonly RuntimeQuery[]): Promise<PlanReport> {
  const db = await PgSqlClient.connect({ url: options.url, maxConnections: 1, statementTimeoutMs: 120_000 });
  try {
    const rep: Representative = {
      region: options.region ?? (await primaryRegion(db)),
      userId: randomUUID(),
      dimensions: await schemaDimensions(db),
      now: new Date(),
    };
    const cleanup = options.seed ? await seedRepresentative(db, rep) : undefined;
    try {
      const report = await verifyPlans(db, [...(await runtimeQueries(rep, db.engine)), ...extra]);
      if (db.engine !== 'cockroach') return report;
      // CockroachDB: the layout decision 0098 asks a cluster to show, beside the plans.
      const schema = await cockroachSchemaVerdict(db);
      return { ...report, verdicts: [...report.verdicts, schema], ok: report.ok && schema.problems.length === 0 };
    } finally {
      await cleanup?.();
    }
  } finally {
    await db.close();
  }
}

/**
 * `npm run verify:plan`: prints the report and answers the exit code (0 when every plan holds).
 * `extra` statements are verified alongside the runtime ones (tests feed broken ones).
 */
export async function main(
  argv: readonly string[],
  out: (line: string) => void = console.log,
  extra: readonly RuntimeQuery[] = [],
): Promise<number> {
  const options = parse(argv);
  if (typeof options === 'string') {
    out(`${options}\n\n${USAGE}`);
    return 2;
  }
  const report = options.url ? await remote({ ...options, url: options.url }, extra) : await local(extra);
  out(renderReport(report, options.verbose));
  return report.ok ? 0 : 1;
}
