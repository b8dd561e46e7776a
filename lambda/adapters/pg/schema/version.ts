import type { SqlClient, SqlEngine } from '../sql-client.js';
import { send } from '../sql/statement.js';
import { APPLIED_MIGRATIONS } from '../statements/schema/applied-migrations.js';
import { CONNECTED_ROLE } from '../statements/schema/connected-role.js';
import { SCHEMA_USAGE } from '../statements/schema/schema-usage.js';
import { SchemaError } from './facts.js';

/**
 * Which schema this code can run against (decision 0071). The code knows the migration files it
 * was built with; the database records the ones applied, and for each contract migration the
 * oldest migration code must know to run against it. Expansions are safe under older code, so a
 * database may be ahead of the code by expansions only.
 */

declare global {
  /**
   * The migration files of each engine, baked in by esbuild's `define` in the Lambda bundle
   * (lib/bundling.ts); absent under tsx and jest, where the files are read from `sql/`.
   */
  var NAABA_MIGRATIONS: Readonly<Record<SqlEngine, readonly string[]>> | undefined;
}

/** One row of `naaba_migrations`. */
export interface AppliedMigration {
  readonly version: string;
  /** Set on a contract migration: code must know this migration to run against the database. */
  readonly requires: string | null;
}

/** How the database stands against this code. */
export interface SchemaStanding {
  readonly state: 'current' | 'behind' | 'ahead' | 'diverged';
  /** Migrations of this code the database lacks: `naaba migrate` applies them. */
  readonly missing: readonly string[];
  /** Migrations applied that this code does not know (a newer release's). */
  readonly unknown: readonly AppliedMigration[];
  /** The unknown ones this code must not run under: contracts requiring a migration it does not know. */
  readonly incompatible: readonly AppliedMigration[];
  /** Whether this code may serve the database: nothing missing, nothing incompatible. */
  readonly compatible: boolean;
}

/** The migration files this code was built with, for the engine. */
export async function knownMigrations(engine: SqlEngine): Promise<readonly string[]> {
  const baked = globalThis.NAABA_MIGRATIONS;
  if (baked) return baked[engine];
  const { migrationFiles } = await import('./migrate.js');
  return migrationFiles(engine);
}

/** Compares what the code knows with what the database has applied. */
export function compareSchema(known: readonly string[], applied: readonly AppliedMigration[]): SchemaStanding {
  const have = new Set(applied.map((m) => m.version));
  const knows = new Set(known);
  const missing = known.filter((v) => !have.has(v));
  const unknown = applied.filter((m) => !knows.has(m.version)).sort((a, b) => a.version.localeCompare(b.version));
  const incompatible = unknown.filter((m) => m.requires !== null && !knows.has(m.requires));
  const state = missing.length > 0 ? (unknown.length > 0 ? 'diverged' : 'behind') : unknown.length > 0 ? 'ahead' : 'current';
  return { state, missing, unknown, incompatible, compatible: missing.length === 0 && incompatible.length === 0 };
}

/** SQLSTATE of a table or column that does not exist. */
const UNDEFINED = new Set(['42P01', '42703']);

/** SQLSTATE of a statement the login has no privilege for. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** The login may not read the migration record: not a schema problem but a login's, said as plainly. */
export class SchemaAccessError extends SchemaError {
  override name = 'SchemaAccessError';
}

/**
 * Whether the login can see the schema's tables at all: without USAGE on the schema, a table it
 * holds is "not found" rather than "permission denied".
 */
async function seesSchema(db: SqlClient): Promise<boolean> {
  const [row] = await send(db, SCHEMA_USAGE, {});
  return row?.usage === true;
}

/** The migrations the database records. */
export async function appliedMigrations(db: SqlClient): Promise<AppliedMigration[]> {
  try {
    return await send(db, APPLIED_MIGRATIONS, {});
  } catch (error) {
    const code = String((error as { code?: unknown }).code);
    const refused = code === INSUFFICIENT_PRIVILEGE || (UNDEFINED.has(code) && !(await seesSchema(db).catch(() => true)));
    if (refused) {
      const role = (await connectedRole(db).catch(() => undefined))?.role ?? 'this login';
      throw new SchemaAccessError(
        `${role} may not read naaba_migrations: it is in none of the roles \`naaba migrate\` grants (naaba_mcp, naaba_authorizer, naaba_sweeper), or they were made after the last \`naaba migrate\`. Add it to its function's role and run \`naaba migrate\` as the owner (docs/deployment.md §2)`,
        { cause: error },
      );
    }
    if (!UNDEFINED.has(code)) throw error;
    throw new SchemaError(
      'the database has no naaba migration record, or one older naaba made: run `naaba migrate` with this release first',
      { cause: error },
    );
  }
}

/** What is wrong, in one sentence an operator can act on; undefined when the code may serve the database. */
export function describeIncompatibility(standing: SchemaStanding): string | undefined {
  if (standing.compatible) return undefined;
  const parts: string[] = [];
  if (standing.missing.length > 0) {
    parts.push(
      `the database lacks ${standing.missing.join(', ')}, which this code needs: run \`naaba migrate\` with this release before deploying it`,
    );
  }
  for (const m of standing.incompatible) {
    parts.push(
      `the database has ${m.version}, a contract migration for code that knows ${m.requires}, which this code predates: deploy that release or a newer one`,
    );
  }
  return `this code does not know the database's schema: ${parts.join('; and ')}`;
}

/**
 * The functions' start-up check: refuses, with what to do, a database that lacks a migration this
 * code needs or has a contract migration made for newer code. One read per container.
 */
export async function requireKnownSchema(db: SqlClient): Promise<SchemaStanding> {
  const standing = compareSchema(await knownMigrations(db.engine), await appliedMigrations(db));
  const problem = describeIncompatibility(standing);
  if (problem) throw new SchemaError(problem);
  return standing;
}

/** Who the connection is, and whether it could change the schema: what the functions' secret must not allow. */
export interface ConnectedRole {
  readonly role: string;
  /** May create objects in the schema the tables live in. */
  readonly canCreate: boolean;
  /** Owns at least one table there (an owner may alter and drop it). */
  readonly ownsTables: boolean;
}

/** The connected role's facts, in SQL both engines accept. */
export async function connectedRole(db: SqlClient): Promise<ConnectedRole> {
  const [row] = await send(db, CONNECTED_ROLE, {});
  return { role: row?.role ?? '?', canCreate: row?.can_create === true, ownsTables: row?.owns_tables === true };
}
