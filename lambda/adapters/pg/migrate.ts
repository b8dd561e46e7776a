import { readdir, readFile } from 'node:fs/promises';
import type { SqlClient, SqlEngine } from './sql-client.js';

/** Where the migrations live: `sql/<engine>/NNNN_name.sql` at the repository root. */
const SQL_ROOT = new URL('../../../sql/', import.meta.url);

/** The regions of a multi-region CockroachDB database: rows live in one of these. */
export interface DatabaseRegions {
  readonly primary: string;
  readonly others: readonly string[];
}

export interface MigrationSettings {
  readonly embeddingDimensions: number;
  /**
   * CockroachDB only: the regions the database must have (from NAABA_DB_REGIONS). When absent,
   * the database must already be multi-region; PostgreSQL ignores it.
   */
  readonly regions?: DatabaseRegions | undefined;
}

/** A migration could not be applied; the message says what to change. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** The oldest CockroachDB with GA vector indexes, cosine opclass and index backfill (DESIGN §5). */
const MIN_COCKROACH = [25, 4] as const;

async function migrationFiles(engine: SqlEngine): Promise<string[]> {
  const names = await readdir(new URL(`${engine}/`, SQL_ROOT));
  return names.filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n)).sort();
}

function render(script: string, settings: MigrationSettings): string {
  return script.replaceAll('{{embedding_dimensions}}', String(settings.embeddingDimensions));
}

/**
 * Splits a DDL script into statements at semicolons that end a line. Comment lines never end a
 * statement, and chunks holding only comments are dropped. Enough for our own DDL, which keeps
 * no semicolon at a line end inside a string.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of script.split('\n')) {
    current.push(line);
    const trimmed = line.trim();
    if (!trimmed.startsWith('--') && trimmed.endsWith(';')) {
      statements.push(current.join('\n'));
      current = [];
    }
  }
  statements.push(current.join('\n'));
  const code = (s: string) =>
    s
      .split('\n')
      .filter((l) => !l.trim().startsWith('--'))
      .join('\n')
      .trim();
  return statements.filter((s) => code(s) !== '').map((s) => s.trim());
}

async function requireCockroachVersion(db: SqlClient): Promise<void> {
  const [row] = await db.query<{ version: string }>('SELECT version() AS version');
  const found = /v(\d+)\.(\d+)/.exec(row?.version ?? '');
  const [major, minor] = [Number(found?.[1] ?? 0), Number(found?.[2] ?? 0)];
  if (major < MIN_COCKROACH[0] || (major === MIN_COCKROACH[0] && minor < MIN_COCKROACH[1])) {
    throw new MigrationError(
      `CockroachDB v${MIN_COCKROACH.join('.')} or newer is needed (vector indexes with cosine distance); the server says "${row?.version ?? 'unknown'}"`,
    );
  }
}

/** A double-quoted SQL identifier (database and region names). */
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Makes the CockroachDB database multi-region with the configured regions, before any table
 * refers to its `crdb_internal_region` type. Adds missing regions; never moves the primary
 * region or drops one, since that rehomes data: those stay deliberate operator actions.
 */
async function ensureRegions(db: SqlClient, wanted: DatabaseRegions | undefined): Promise<void> {
  const [row] = await db.query<{ name: string }>('SELECT current_database() AS name');
  const database = row?.name ?? '';
  const have = await db.query<{ region: string; primary: boolean }>(
    `SELECT region, "primary" FROM [SHOW REGIONS FROM DATABASE ${ident(database)}]`,
  );
  const primary = have.find((r) => r.primary)?.region;
  if (!wanted) {
    if (primary) return;
    throw new MigrationError(
      `database ${database} is not multi-region: set NAABA_DB_REGIONS to its regions, primary first (e.g. eu-central-1,us-east-1); SHOW REGIONS FROM CLUSTER lists them`,
    );
  }
  if (primary && primary !== wanted.primary) {
    throw new MigrationError(
      `database ${database} has primary region ${primary} but NAABA_DB_REGIONS starts with ${wanted.primary}; change one of them deliberately`,
    );
  }
  if (!primary) await db.exec(`ALTER DATABASE ${ident(database)} SET PRIMARY REGION ${ident(wanted.primary)}`);
  const present = new Set(have.map((r) => r.region));
  for (const region of wanted.others) {
    if (!present.has(region)) await db.exec(`ALTER DATABASE ${ident(database)} ADD REGION IF NOT EXISTS ${ident(region)}`);
  }
}

/**
 * PostgreSQL: each file in one transaction, all or nothing. CockroachDB: each statement on its
 * own, since multi-region `ALTER DATABASE` and schema changes on REGIONAL BY ROW tables do not
 * belong in one explicit transaction; every statement there is written to be re-runnable.
 */
async function apply(db: SqlClient, file: string, script: string): Promise<void> {
  const record = `INSERT INTO naaba_migrations (version, applied_at) VALUES ('${file}', now()) ON CONFLICT (version) DO NOTHING`;
  if (db.engine === 'postgres') {
    await db.exec(`BEGIN;\n${script}\n${record};\nCOMMIT;`);
    return;
  }
  for (const statement of splitStatements(script)) {
    try {
      await db.exec(statement);
    } catch (error) {
      const head = statement.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('--')) ?? '';
      throw new MigrationError(`${file}: "${head.trim()}" failed: ${(error as Error).message}`, { cause: error });
    }
  }
  await db.exec(record);
}

/** Applies the engine's migrations not yet applied; returns their names. */
export async function migrate(db: SqlClient, settings: MigrationSettings): Promise<string[]> {
  await db.exec('CREATE TABLE IF NOT EXISTS naaba_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)');
  if (db.engine === 'cockroach') {
    await requireCockroachVersion(db);
    await ensureRegions(db, settings.regions);
  }
  const done = new Set((await db.query<{ version: string }>('SELECT version FROM naaba_migrations')).map((r) => r.version));
  const applied: string[] = [];
  for (const file of await migrationFiles(db.engine)) {
    if (done.has(file)) continue;
    await apply(db, file, render(await readFile(new URL(`${db.engine}/${file}`, SQL_ROOT), 'utf8'), settings));
    applied.push(file);
  }
  return applied;
}
