import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { REPO_ROOT } from '../../lib/bundling.js';

/**
 * What the runtime's SQL needs, read from its source (decision 0069): every statement the
 * functions send is a file of `lambda/adapters/pg/statements/` (with the fragments of `sql/` they
 * share), upper-case keywords, lower-case table names. From that text, each table the statements
 * insert into, update, delete from or read. Used to hold the runtime grants to exactly what is
 * needed, whoever adds a statement or a table.
 */

/**
 * Statements the owner runs, never the runtime role: a re-embedding's, the migration runner's
 * reads of the server and the catalog, and the local engine's upkeep.
 */
export const OWNER_ONLY = [
  /^maintenance\/reembed-/,
  /^schema\/(stale-statistics|role-exists|current-database|regions-of-database|server-version|delete-setting)\.ts$/,
] as const;

/** The runtime's SQL modules (statements and the fragments they share), each with its source text stripped of comments. */
export function runtimeSqlSources(): { file: string; text: string }[] {
  const pg = join(REPO_ROOT, 'lambda', 'adapters', 'pg');
  const statements = readdirSync(join(pg, 'statements'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !OWNER_ONLY.some((owner) => owner.test(f)))
    .map((f) => `statements/${f}`);
  return [...statements, 'sql/fragments.ts', 'sql/policy.ts', 'sql/postings.ts'].sort().map((file) => ({
    file,
    text: readFileSync(join(pg, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, ' ')
      .replace(/^\s*\/\/.*$/gm, ' '),
  }));
}

/** A privilege a statement needs on a table, as `table:PRIVILEGE`. */
export type Need = `${string}:${'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE'}`;

/**
 * The privileges `text` needs on the given tables: INSERT INTO t, UPDATE t, DELETE FROM t, and
 * SELECT for every FROM or JOIN of t (UPDATE and DELETE read their WHERE, RETURNING reads too). An
 * `ON CONFLICT … DO UPDATE` needs UPDATE on the table of the INSERT before it; `FOR UPDATE`
 * needs UPDATE on the table read before it.
 */
export function needsOf(text: string, tables: ReadonlySet<string>): Set<Need> {
  const needs = new Set<Need>();
  const add = (table: string | undefined, privilege: 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE') => {
    if (table !== undefined && tables.has(table)) needs.add(`${table}:${privilege}`);
  };
  let lastInsert: string | undefined;
  let lastRead: string | undefined;
  const pattern = /\b(INSERT INTO|DELETE FROM|DO UPDATE|FOR UPDATE|UPDATE|FROM|JOIN)\b(?:\s+([a-z_][a-z0-9_]*))?/g;
  for (const [, keyword, table] of text.matchAll(pattern)) {
    switch (keyword) {
      case 'INSERT INTO':
        lastInsert = table;
        add(table, 'INSERT');
        break;
      case 'DELETE FROM':
        add(table, 'DELETE');
        add(table, 'SELECT');
        break;
      case 'DO UPDATE':
        add(lastInsert, 'UPDATE');
        break;
      case 'FOR UPDATE':
        add(lastRead, 'UPDATE');
        break;
      case 'UPDATE':
        add(table, 'UPDATE');
        add(table, 'SELECT');
        break;
      default:
        if (table !== undefined && tables.has(table)) lastRead = table;
        add(table, 'SELECT');
    }
  }
  return needs;
}

/** Everything the runtime's statements need on these tables, with the module each need comes from. */
export function runtimeNeeds(tables: ReadonlySet<string>): Map<Need, string[]> {
  const found = new Map<Need, string[]>();
  for (const { file, text } of runtimeSqlSources()) {
    for (const need of needsOf(text, tables)) found.set(need, [...(found.get(need) ?? []), file]);
  }
  return found;
}

/** The tables the engine's migration files create (`CREATE TABLE [IF NOT EXISTS] name`), and the runner's own record. */
export function migratedTables(engine: 'postgres' | 'cockroach'): string[] {
  const dir = join(REPO_ROOT, 'sql', engine);
  const names = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gim)])
    .map((m) => m[1] ?? '');
  return [...new Set(['naaba_migrations', ...names])].sort();
}

/** Child tables whose rows an `ON DELETE CASCADE` removes with a parent's, as `child → parent`, from the engine's DDL. */
export function cascades(engine: 'postgres' | 'cockroach'): [string, string][] {
  const dir = join(REPO_ROOT, 'sql', engine);
  const found: [string, string][] = [];
  for (const f of readdirSync(dir).filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n))) {
    const ddl = readFileSync(join(dir, f), 'utf8');
    for (const table of ddl.matchAll(/^CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*) \(([\s\S]*?)^\)/gim)) {
      for (const ref of (table[2] ?? '').matchAll(/REFERENCES ([a-z_][a-z0-9_]*)[^\n]*?ON DELETE CASCADE/gi)) {
        found.push([table[1] ?? '', ref[1] ?? '']);
      }
    }
  }
  return found;
}

/** A SqlClient that answers nothing and keeps the text of every statement it is sent. */
function recorder(engine: 'postgres' | 'cockroach'): { client: SqlClient; texts: string[] } {
  const texts: string[] = [];
  const query = async <R>({ text }: Query): Promise<R[]> => {
    texts.push(text);
    return [];
  };
  return { client: { engine, query, exec: async (script) => void texts.push(script), close: async () => undefined }, texts };
}

const SCOPE = { region: 'eu-central-1', userId: '00000000-0000-4000-8000-000000000001' };
const NOW = new Date(0);

/**
 * The statements each function sends, by running the store calls it makes against a recorder
 * (decision 0093): the authorizer's key lookups, the sweeper's sweep, and the start-up schema
 * check both make. The MCP function sends the rest of the runtime's statements.
 */
export async function functionStatements(
  engine: 'postgres' | 'cockroach',
): Promise<{ authorizer: string[]; sweeper: string[]; keyAdmin: string[]; mcpKeys: string[] }> {
  const [{ SqlKeyStore }, { sqlMemoryStores }, { SqlOAuthStore }, { APPLIED_MIGRATIONS }, { RANK_POSTINGS }] = await Promise.all([
    import('../../lambda/adapters/pg/stores/sql-key-store.js'),
    import('../../lambda/adapters/pg/stores/sql-memory-stores.js'),
    import('../../lambda/adapters/pg/stores/sql-oauth-store.js'),
    import('../../lambda/adapters/pg/statements/schema/applied-migrations.js'),
    import('../../lambda/adapters/pg/statements/maintenance/rank-postings.js'),
  ]);
  const appliedMigrations = APPLIED_MIGRATIONS.query({}, engine).text;
  const authorizer = recorder(engine);
  const keys = new SqlKeyStore(authorizer.client);
  await keys.findByHash('a'.repeat(64));
  await keys.findByAccessToken('a'.repeat(64), NOW);

  const sweeper = recorder(engine);
  const store = sqlMemoryStores(sweeper.client).maintenance;
  await store.sweepExpired(SCOPE.region, 'session', NOW, 10, NOW);
  await store.trimJournal(SCOPE.region, NOW, 10);
  await store.expiringKinds(SCOPE.region);
  await store.markExpiring(SCOPE.region, 'session', 10);
  await store.recordExpiringKinds(SCOPE.region, ['session']);
  await store.clearEmptyTerms(SCOPE.region, 10);
  await store.rankPostings(SCOPE.region, 10);
  // What rankPostings sends for each term it finds (the recorder finds none).
  await sweeper.client.query(RANK_POSTINGS.query({ scope: SCOPE, kind: 'fact', term: 't', ranked: 1 }, engine));
  await store.cellPartitions(SCOPE.region, 10);
  await store.unmarkCells(SCOPE, 'fact', 100);
  await store.buildCells(SCOPE, 'fact', { cells: 4, rounds: 1, rowsPerStep: 100, memories: 100, cellsFor: 100 });
  await store.dropCells(SCOPE, 'fact', 100);
  await store.assignCells(SCOPE, 'fact', 10);
  await store.refreshCells(SCOPE, 'fact', { rowsPerStep: 100, memories: 100 });
  await new SqlOAuthStore(sweeper.client, SCOPE.region).deleteExpired(NOW, 10);

  // The MCP function's key calls: the key typed at consent, and revoking a grant (the owner's routine).
  const mcpKeys = recorder(engine);
  await new SqlKeyStore(mcpKeys.client).findByHash('a'.repeat(64));
  await new SqlKeyStore(mcpKeys.client).revoke(SCOPE.userId, NOW);

  const keyAdmin = recorder(engine);
  const admin = new SqlKeyStore(keyAdmin.client);
  await admin.insert({
    keyId: SCOPE.userId,
    tokenSha256: 'a'.repeat(64),
    name: 'n',
    userId: SCOPE.userId,
    region: SCOPE.region,
    createdAt: NOW,
    revokedAt: null,
    clientId: null,
    grantedBy: null,
  });
  await admin.list();
  await admin.userExists(SCOPE.userId, SCOPE.region);
  return {
    authorizer: [appliedMigrations, ...authorizer.texts],
    sweeper: [appliedMigrations, ...sweeper.texts],
    keyAdmin: keyAdmin.texts,
    mcpKeys: mcpKeys.texts,
  };
}
