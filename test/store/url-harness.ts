import { sql as sqlText } from '../../lambda/adapters/pg/sql/template.js';
import { type DatabaseRegions, migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { schemaDimensions } from '../../lambda/adapters/pg/schema/facts.js';
import { environment } from '../../lambda/config/env.js';
import { PATIENT_CONNECT_MS } from '../support/budgets.js';
import { DIMENSIONS } from '../support/vectors.js';
import { type StoreHarness, sqlHarness } from './harness.js';

/**
 * Opens the store conformance suite's harness on any PostgreSQL-wire URL: migrated with the
 * engine's DDL first (on CockroachDB with the suite's regions); each test empties the tables.
 */
const env = environment();

/** The regions the suite writes rows for: on CockroachDB both must be regions of the database. */
const SUITE_REGIONS: DatabaseRegions = { primary: 'eu-central-1', others: ['us-east-1'] };

function regionsFromEnv(): DatabaseRegions {
  const names = (env.NAABA_DB_REGIONS ?? '').split(',').filter((r) => r.trim() !== '');
  const [primary, ...others] = names.map((r) => r.trim());
  return primary ? { primary, others } : SUITE_REGIONS;
}

/** The URL without its password, for test names and messages. */
export function redact(raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

async function requireSuiteRegions(sql: PgSqlClient): Promise<void> {
  const rows = await sql.query<{ region: string }>(sqlText`SELECT region FROM [SHOW REGIONS FROM DATABASE]`);
  const present = new Set(rows.map((r) => r.region));
  const missing = [SUITE_REGIONS.primary, ...SUITE_REGIONS.others].filter((r) => !present.has(r));
  if (missing.length > 0) {
    throw new Error(
      `the conformance suite writes rows homed in ${SUITE_REGIONS.primary} and ${SUITE_REGIONS.others.join(', ')}, but the database lacks ${missing.join(', ')}: use a cluster with those localities (docs/index-compatibility.md, "Checking on a cluster")`,
    );
  }
}

export async function openUrl(target: string): Promise<StoreHarness> {
  const sql = await PgSqlClient.connect({
    url: target,
    maxConnections: 4,
    statementTimeoutMs: 60_000,
    connectionTimeoutMs: PATIENT_CONNECT_MS,
  });
  await migrate(sql, { embeddingDimensions: DIMENSIONS, regions: sql.engine === 'cockroach' ? regionsFromEnv() : undefined });
  const dimensions = await schemaDimensions(sql);
  if (dimensions !== DIMENSIONS) {
    throw new Error(
      `the database was migrated for ${dimensions}-dimensional embeddings; the suite needs ${DIMENSIONS}: use a scratch database`,
    );
  }
  if (sql.engine === 'cockroach') await requireSuiteRegions(sql);
  return sqlHarness(sql, { close: () => sql.close() });
}
