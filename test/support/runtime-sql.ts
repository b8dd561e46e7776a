import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  return [...statements, 'sql/fragments.ts', 'sql/policy.ts'].sort().map((file) => ({
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
