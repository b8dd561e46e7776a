import { readdir, readFile } from 'node:fs/promises';
import { VECTOR_CELLS } from '../../../memory/policy/ranking.js';
import type { SqlClient, SqlEngine } from '../sql-client.js';
import { send } from '../sql/statement.js';
import { type DatabaseRegions, DEFAULT_HASH_BUCKETS, HASH_BUCKETS } from '../../../config/database.js';
import { type BackfillProgress, DEFAULT_BATCH_ROWS, migrationPhases, runBackfill, runsInPhases } from './backfill.js';
import { APPLIED_MIGRATIONS } from '../statements/schema/applied-migrations.js';
import { CURRENT_DATABASE } from '../statements/schema/current-database.js';
import { INVALID_INDEX } from '../statements/schema/invalid-index.js';
import { identifier as ident, REGIONS_OF_DATABASE } from '../statements/schema/regions-of-database.js';
import { ROLE_EXISTS } from '../statements/schema/role-exists.js';
import { SERVER_VERSION } from '../statements/schema/server-version.js';
import { TABLE_HAS_ROWS } from '../statements/schema/table-has-rows.js';

/** Where the migrations live: `sql/<engine>/NNNN_name.sql` at the repository root. */
const SQL_ROOT = new URL('../../../../sql/', import.meta.url);

export type { DatabaseRegions } from '../../../config/database.js';

export interface MigrationSettings {
  readonly embeddingDimensions: number;
  /**
   * Stop before the first pending contract migration instead of applying it (what `naaba migrate`
   * does unless told `--contract`): a contract removes what older code still uses, so it waits
   * until no such code runs (docs/deployment.md, "Schema upgrades"). A database with no migration
   * applied yet takes every file: no code can be running against it.
   */
  readonly stopBeforeContract?: boolean;
  /** The folder holding `<engine>/NNNN_name.sql`; the repository's `sql/` unless a test gives its own. */
  readonly source?: URL;
  /**
   * CockroachDB only: the regions the database must have (from NAABA_DB_REGIONS). When absent,
   * the database must already be multi-region; PostgreSQL ignores it.
   */
  readonly regions?: DatabaseRegions | undefined;
  /** CockroachDB only: buckets of each hash-sharded index a migration creates (NAABA_HASH_BUCKETS); {@link DEFAULT_HASH_BUCKETS} unless set. */
  readonly hashBuckets?: number | undefined;
  /** Rows per batch of a backfill step (`{{batch}}`, decision 0099); 5,000 unless given. */
  readonly batchRows?: number | undefined;
  /**
   * Apply a migration that rewrites a populated table (`-- naaba:rewrite`, decision 0152): what
   * `naaba migrate --allow-rewrite` says once the rewrite is planned. Without it such a migration
   * is refused while its table holds rows.
   */
  readonly allowRewrite?: boolean | undefined;
  /** Told how each backfill step is going: what `naaba migrate` prints. */
  readonly progress?: ((p: BackfillProgress) => void) | undefined;
}

/** A migration could not be applied; the message says what to change. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** `naaba migrate` stopped before a contract migration; what came before it is applied. */
export class ContractPendingError extends MigrationError {
  override name = 'ContractPendingError';

  constructor(
    readonly file: string,
    readonly requires: string,
    readonly applied: readonly string[],
  ) {
    super(
      `stopped before ${file}: it is a contract migration, which removes what code older than ${requires} still uses. Deploy code that ships ${requires} to every region, check each region with \`naaba migrate --check\` (the functions' secret), then run \`naaba migrate --contract\`${applied.length > 0 ? ` (applied before it: ${applied.join(', ')})` : ''}`,
    );
  }
}

/** What a migration rewrites, as its `-- naaba:rewrite` line declares it. */
export interface Rewrite {
  readonly table: string;
  readonly what: string;
}

/** `naaba migrate` refused a migration that rewrites a populated table; what came before it is applied. */
export class RewriteRefusedError extends MigrationError {
  override name = 'RewriteRefusedError';

  constructor(
    readonly file: string,
    readonly rewrite: Rewrite,
  ) {
    super(
      `refused ${file}: it rewrites ${rewrite.table} (${rewrite.what}) and ${rewrite.table} holds rows; plan it (docs/deployment.md, "Rewrites on a populated cluster"), then run \`naaba migrate --allow-rewrite\``,
    );
  }
}

/**
 * A migration's declaration that it rewrites a table in place, in a comment line of its file:
 * `-- naaba:rewrite memories: the primary key and every index`. On a populated table such a
 * rewrite holds the table's writes or space for long (decision 0152), so the runner applies it
 * only when told to.
 */
export function rewriteOf(script: string): Rewrite | undefined {
  const found = /^--\s*naaba:rewrite\s+([a-z_][a-z0-9_]*):\s*(.+?)\s*$/m.exec(script);
  return found ? { table: found[1] ?? '', what: found[2] ?? '' } : undefined;
}

/**
 * A migration's own declaration, in a comment line of its file: `-- naaba:contract requires=NNNN_name.sql`
 * marks a contract migration and names the oldest migration whose code no longer needs what it
 * removes. Without the line a migration is an expansion, safe under any older code
 * (test/plan/migration-phases.test.ts holds every file to that).
 */
export function contractRequires(script: string): string | undefined {
  const found = /^--\s*naaba:contract\s+requires=(\d{4}_[a-z0-9_]+?)(\.sql)?\s*$/m.exec(script);
  return found ? `${found[1]}.sql` : undefined;
}

/**
 * Statements an expansion may hold: each leaves every statement older code sends working. New
 * tables, indexes, columns that are nullable or have a default, seed rows and backfills, relaxed
 * NOT NULL; dropping an index too, since no statement names one; statistics (`ANALYZE`); a read (a marker migration may
 * hold nothing else, or only a comment). Anything else (dropping or
 * renaming a table or column, changing a type, a new constraint, deleting rows) is a contract.
 */
const EXPANSIONS: readonly RegExp[] = [
  /^CREATE (UNIQUE |INVERTED )?INDEX\b/,
  /^CREATE TABLE\b/,
  /^CREATE EXTENSION\b/,
  /^INSERT INTO\b/,
  /^UPDATE\b/,
  /^DROP INDEX\b/,
  /^GRANT\b/,
  /^REVOKE\b/,
  /^CREATE (OR REPLACE )?FUNCTION\b/,
  /^COMMENT ON\b/,
  /^SELECT\b/,
  // Statistics for the planner: they change no row and no statement's meaning.
  /^ANALYZE\b/,
  /^ALTER TABLE (IF EXISTS )?\S+ ADD COLUMN\b/,
  /^ALTER TABLE (IF EXISTS )?\S+ ALTER COLUMN \S+ (DROP NOT NULL|SET DEFAULT)\b/,
  // A dropped check accepts every row older code writes, as a relaxed NOT NULL does.
  /^ALTER TABLE (IF EXISTS )?JOURNAL DROP CONSTRAINT (IF EXISTS )?(JOURNAL_RULE_CHECK|CHECK_RULE);?$/,
  // CockroachDB's online key change: same columns, same rows, every statement of older code still works.
  /^ALTER TABLE (IF EXISTS )?\S+ ALTER PRIMARY KEY USING COLUMNS\b/,
];

/** The statements of a migration that only a contract migration may hold, each by its first line. */
export function contractStatements(script: string): string[] {
  return splitStatements(script)
    .map((statement) =>
      statement
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((code) => {
      const upper = code.toUpperCase();
      // A NOT NULL column without a default refuses older code's inserts, which do not name it.
      const requiredColumn = /\bADD COLUMN\b/.test(upper) && /\bNOT NULL\b/.test(upper) && !/\bDEFAULT\b/.test(upper);
      return requiredColumn || !EXPANSIONS.some((pattern) => pattern.test(upper));
    });
}

/** The engine's migration files in order: what this code knows. */
export async function migrationFiles(engine: SqlEngine, source: URL = SQL_ROOT): Promise<string[]> {
  const names = await readdir(new URL(`${engine}/`, source));
  return names.filter((n) => MIGRATION_FILE.test(n)).sort();
}

/** A migration's file name; other files in `sql/<engine>/` (the runtime grants) are not migrations. */
export const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

/** The oldest CockroachDB with GA vector indexes, cosine opclass and index backfill (DESIGN §5). */
const MIN_COCKROACH = [25, 4] as const;

function render(script: string, settings: MigrationSettings): string {
  const buckets = settings.hashBuckets ?? DEFAULT_HASH_BUCKETS;
  if (!Number.isInteger(buckets) || buckets < HASH_BUCKETS.min || buckets > HASH_BUCKETS.max) {
    throw new MigrationError(`hash bucket count ${buckets}: expected an integer from 2 to 2048, at most the node count`);
  }
  return (
    script
      .replaceAll('{{embedding_dimensions}}', String(settings.embeddingDimensions))
      .replaceAll('{{hash_buckets}}', String(buckets))
      // The size from which a partition is marked for the sweeper's cells (decision 0118): the policy's, never a copy.
      .replaceAll('{{cells_from}}', String(VECTOR_CELLS.from))
  );
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
  const [row] = await send(db, SERVER_VERSION, {});
  const found = /v(\d+)\.(\d+)/.exec(row?.version ?? '');
  const [major, minor] = [Number(found?.[1] ?? 0), Number(found?.[2] ?? 0)];
  if (major < MIN_COCKROACH[0] || (major === MIN_COCKROACH[0] && minor < MIN_COCKROACH[1])) {
    throw new MigrationError(
      `CockroachDB v${MIN_COCKROACH.join('.')} or newer is needed (vector indexes with cosine distance); the server says "${row?.version ?? 'unknown'}"`,
    );
  }
}

/**
 * Makes the CockroachDB database multi-region with the configured regions, before any table
 * refers to its `crdb_internal_region` type. Adds missing regions; never moves the primary
 * region or drops one, since that rehomes data: those stay deliberate operator actions.
 */
async function ensureRegions(db: SqlClient, wanted: DatabaseRegions | undefined): Promise<void> {
  const [row] = await send(db, CURRENT_DATABASE, {});
  const database = row?.name ?? '';
  const have = await send(db, REGIONS_OF_DATABASE, { database });
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
 * belong in one explicit transaction; every statement there is written to be re-runnable. A file
 * with backfill steps or concurrent index builds runs in phases instead ({@link applyInPhases}).
 */
async function apply(db: SqlClient, file: string, script: string, settings: MigrationSettings): Promise<void> {
  const record = recordOf(file, script);
  const statements = splitStatements(script);
  if (runsInPhases(statements)) {
    await applyInPhases(db, file, statements, settings);
  } else if (db.engine === 'postgres') {
    await db.exec(`BEGIN;\n${script}\n${record};\nCOMMIT;`);
    return;
  } else {
    for (const statement of statements) await applyOne(db, file, statement);
  }
  await db.exec(record);
}

/** The line that records a file as applied, with what a contract migration requires. */
function recordOf(file: string, script: string): string {
  const requires = contractRequires(script);
  return requires === undefined
    ? `INSERT INTO naaba_migrations (version, applied_at) VALUES ('${file}', now()) ON CONFLICT (version) DO NOTHING`
    : `INSERT INTO naaba_migrations (version, applied_at, requires) VALUES ('${file}', now(), '${requires}') ON CONFLICT (version) DO NOTHING`;
}

async function applyOne(db: SqlClient, file: string, statement: string): Promise<void> {
  try {
    await db.exec(statement);
  } catch (error) {
    const head = statement.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('--')) ?? '';
    throw new MigrationError(`${file}: "${head.trim()}" failed: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A file that a populated database must take without stopping its writers (decision 0099): plain
 * statements together (one transaction on PostgreSQL), each backfill step in batches of its own
 * transactions, each concurrent index build alone; the file is recorded only after its last
 * phase. Killed half-way, the next run starts the file again, so its statements are written to be
 * re-runnable (`IF NOT EXISTS`, steps that pick only rows not done) and an index build that a kill
 * left invalid is dropped and built again.
 */
async function applyInPhases(
  db: SqlClient,
  file: string,
  statements: readonly string[],
  settings: MigrationSettings,
): Promise<void> {
  let step = 0;
  for (const phase of migrationPhases(statements)) {
    if (phase.kind === 'batches') {
      step += 1;
      try {
        await runBackfill(db, phase.statement, {
          file,
          step,
          batchRows: settings.batchRows ?? DEFAULT_BATCH_ROWS,
          progress: settings.progress,
        });
      } catch (error) {
        throw new MigrationError(
          `${file}: backfill ${step} failed (run naaba migrate again to go on from where it stopped): ${(error as Error).message}`,
          { cause: error },
        );
      }
    } else if (phase.kind === 'alone') {
      if (db.engine === 'postgres') await dropInvalidIndex(db, phase.statement);
      await applyOne(db, file, phase.statement);
    } else if (db.engine === 'postgres') {
      await applyOne(db, file, `BEGIN;\n${phase.statements.join('\n')}\nCOMMIT;`);
    } else {
      for (const statement of phase.statements) await applyOne(db, file, statement);
    }
  }
}

/** A concurrent build a kill interrupted leaves an invalid index that `IF NOT EXISTS` would keep. */
async function dropInvalidIndex(db: SqlClient, statement: string): Promise<void> {
  const name = /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)/i.exec(
    statement,
  )?.[1];
  if (!name) return;
  const [invalid] = await send(db, INVALID_INDEX, { index: name });
  if (invalid?.found) await db.exec(`DROP INDEX IF EXISTS ${ident(name)}`);
}

/**
 * The record of applied migrations. `requires` is set on contract migrations: the oldest migration
 * code must know to run against this database (lambda/adapters/pg/schema-version.ts reads it).
 * The ALTER brings a record made before the column existed up to date.
 */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS naaba_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL, requires TEXT);
ALTER TABLE naaba_migrations ADD COLUMN IF NOT EXISTS requires TEXT`;

/**
 * Applies the engine's migrations not yet applied, in order; returns their names. With
 * `stopBeforeContract`, throws {@link ContractPendingError} at the first pending contract
 * migration of a database that already has migrations, after applying those before it.
 */
export async function migrate(db: SqlClient, settings: MigrationSettings): Promise<string[]> {
  await db.exec(MIGRATIONS_TABLE);
  if (db.engine === 'cockroach') {
    await requireCockroachVersion(db);
    await ensureRegions(db, settings.regions);
  }
  const done = new Set((await send(db, APPLIED_MIGRATIONS, {})).map((r) => r.version));
  const applied: string[] = [];
  const source = settings.source ?? SQL_ROOT;
  for (const file of await migrationFiles(db.engine, source)) {
    if (done.has(file)) continue;
    const script = render(await readFile(new URL(`${db.engine}/${file}`, source), 'utf8'), settings);
    const requires = contractRequires(script);
    const contracts = contractStatements(script);
    if (requires === undefined && contracts.length > 0) {
      throw new MigrationError(
        `${file} changes what older code uses (${contracts[0]?.slice(0, 60)}…) but does not say it is a contract migration: add the line "-- naaba:contract requires=NNNN_name.sql" naming the first migration of code that no longer needs it (docs/deployment.md, "Schema upgrades")`,
      );
    }
    if (requires !== undefined && settings.stopBeforeContract && done.size > 0) {
      throw new ContractPendingError(file, requires, applied);
    }
    const rewrite = rewriteOf(script);
    if (rewrite && !settings.allowRewrite) {
      const [rows] = await send(db, TABLE_HAS_ROWS, { table: rewrite.table });
      if (rows?.found) throw new RewriteRefusedError(file, rewrite);
    }
    await apply(db, file, script, settings);
    applied.push(file);
  }
  return applied;
}

/** Where the function roles' privileges are written, one file per engine: `sql/<engine>/runtime-grants.sql`. */
export const RUNTIME_GRANTS_FILE = 'runtime-grants.sql';

/** The functions that log in to the database, each as a role of its own (decision 0093). */
export const RUNTIME_ROLES = ['mcp', 'authorizer', 'sweeper'] as const;
export type RuntimeRole = (typeof RUNTIME_ROLES)[number];

/** The role each function's logins are members of, unless `--runtime-roles` names others. */
export const DEFAULT_RUNTIME_ROLES: Readonly<Record<RuntimeRole, string>> = {
  mcp: 'naaba_mcp',
  authorizer: 'naaba_authorizer',
  sweeper: 'naaba_sweeper',
};

/** The table lines of one role: each table and the privileges granted on it. */
export type TableGrants = ReadonlyMap<string, readonly string[]>;

/** The table lines of a grants file per role (database and schema lines left out), privileges sorted. */
export function parseRuntimeGrants(text: string): ReadonlyMap<RuntimeRole, TableGrants> {
  const grants = new Map<RuntimeRole, Map<string, string[]>>(RUNTIME_ROLES.map((r) => [r, new Map()]));
  for (const found of text.matchAll(/^GRANT\s+([A-Z, ]+?)\s+ON\s+TABLE\s+([a-z_][a-z0-9_]*)\s+TO\s+\{\{(\w+)_role\}\};/gm)) {
    const [, privileges = '', table = '', role = ''] = found;
    const lines = grants.get(role as RuntimeRole);
    if (!lines) throw new MigrationError(`${RUNTIME_GRANTS_FILE}: no such role {{${role}_role}}`);
    lines.set(table, [...(lines.get(table) ?? []), ...privileges.split(',').map((p) => p.trim())].sort());
  }
  return grants;
}

/** The routines each role may call (`GRANT EXECUTE ON FUNCTION name(…)`), by name. */
export function parseFunctionGrants(text: string): ReadonlyMap<RuntimeRole, readonly string[]> {
  const grants = new Map<RuntimeRole, string[]>(RUNTIME_ROLES.map((r) => [r, []]));
  for (const [, name = '', role = ''] of text.matchAll(
    /^GRANT EXECUTE ON FUNCTION ([a-z_][a-z0-9_]*)\(.*\) TO \{\{(\w+)_role\}\};/gm,
  )) {
    grants.get(role as RuntimeRole)?.push(name);
  }
  return grants;
}

/** The runtime grants of an engine as written, placeholders and all. */
export function runtimeGrantsText(engine: SqlEngine): Promise<string> {
  return readFile(new URL(`${engine}/${RUNTIME_GRANTS_FILE}`, SQL_ROOT), 'utf8');
}

/**
 * Grants each function role exactly the DML of `sql/<engine>/runtime-grants.sql` (decisions 0069,
 * 0093), as the schema owner, after the migrations. The roles must exist (the administrator
 * creates them once, docs/deployment.md §2); GRANT is idempotent, so this runs on every `naaba
 * migrate`, and a table a new migration adds is granted in the same run. Returns the statements it ran.
 */
export async function grantRuntimeRoles(db: SqlClient, roles: Readonly<Record<RuntimeRole, string>>): Promise<string[]> {
  const missing: string[] = [];
  for (const role of RUNTIME_ROLES) {
    const [found] = await send(db, ROLE_EXISTS, { role: roles[role] });
    if (!found?.found) missing.push(roles[role]);
  }
  if (missing.length > 0) {
    throw new MigrationError(
      `the role${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist: create the function roles once as an administrator (docs/deployment.md §2), or name others with --runtime-roles mcp=…,authorizer=…,sweeper=…`,
    );
  }
  const [database] = await send(db, CURRENT_DATABASE, {});
  let text = (await runtimeGrantsText(db.engine)).replaceAll('{{database}}', ident(database?.name ?? ''));
  for (const role of RUNTIME_ROLES) text = text.replaceAll(`{{${role}_role}}`, ident(roles[role]));
  const statements = splitStatements(text);
  if (db.engine === 'postgres') await db.exec(`BEGIN;\n${statements.join('\n')}\nCOMMIT;`);
  else for (const statement of statements) await db.exec(statement);
  return statements;
}
