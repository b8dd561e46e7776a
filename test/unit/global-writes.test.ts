import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitStatements } from '../../lambda/adapters/pg/schema/migrate.js';

/**
 * No statement of the sweeper or of a request writes a GLOBAL table, except a key's or OAuth's
 * (issue 51, decision 0151). On CockroachDB a write to a GLOBAL row inside a regional transaction
 * commit-waits while it holds the region's locks, and every region contends for the row. The GLOBAL
 * tables are read from the CockroachDB DDL; the writes from each statement file's SQL, and from the
 * routines a statement calls. No cluster here: this holds the text, as cockroach-schema does.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STATEMENTS = join(ROOT, 'lambda/adapters/pg/statements');
const COCKROACH = join(ROOT, 'sql/cockroach');

/**
 * Statements that may write a GLOBAL table, besides every `keys/` and `oauth/` one, each with why:
 * none is a sweeper step or sent by a request.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  'schema/record-setting': 'the schema facts, written by `naaba migrate`, `naaba reembed`, or once on an empty table at start-up',
  'schema/delete-setting': "`naaba reembed`'s cursor cleared at its end, an operator's command",
  'maintenance/reembed-rewrite': "`naaba reembed`'s cursor, an operator's command that is no sweeper step",
};
const KEY_OR_OAUTH = /^(keys|oauth)\//;

const code = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join(' ')
    .replace(/\s+/g, ' ');

/** The tables an SQL text writes: INSERT INTO, UPSERT INTO, UPDATE, DELETE FROM (an ON CONFLICT's DO UPDATE SET is its INSERT's). */
function writtenTables(text: string): string[] {
  const found = [...code(text).matchAll(/\b(?:INSERT INTO|UPSERT INTO|UPDATE|DELETE FROM)\s+(?:public\.)?([a-z_][a-z0-9_]*)/gi)];
  return [...new Set(found.map((m) => (m[1] ?? '').toLowerCase()).filter((t) => t !== 'set'))].sort();
}

/** GLOBAL tables of the CockroachDB DDL, after every migration. */
function globalTables(): Set<string> {
  const tables = new Set<string>();
  for (const file of readdirSync(COCKROACH)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()) {
    for (const statement of splitStatements(readFileSync(join(COCKROACH, file), 'utf8')).map(code)) {
      const created = /CREATE TABLE IF NOT EXISTS (\w+) \(.*\) LOCALITY (GLOBAL|REGIONAL BY ROW)/.exec(statement);
      if (created?.[2] === 'GLOBAL') tables.add(created[1] ?? '');
      const moved = /ALTER TABLE (\w+) SET LOCALITY (GLOBAL|REGIONAL)/.exec(statement);
      if (moved) moved[2] === 'GLOBAL' ? tables.add(moved[1] ?? '') : tables.delete(moved[1] ?? '');
    }
  }
  return tables;
}

/** What each routine of the CockroachDB migrations writes, by name (the last definition wins). */
function routineWrites(): Map<string, string[]> {
  const routines = new Map<string, string[]>();
  for (const file of readdirSync(COCKROACH)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()) {
    const text = readFileSync(join(COCKROACH, file), 'utf8');
    for (const [, name = '', body = ''] of text.matchAll(/CREATE OR REPLACE FUNCTION (\w+)\([\s\S]*?AS \$\$([\s\S]*?)\$\$/g)) {
      routines.set(name, writtenTables(body));
    }
  }
  return routines;
}

function statementFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? statementFiles(join(dir, e.name))
      : e.name.endsWith('.ts') && e.name !== 'index.ts'
        ? [join(dir, e.name)]
        : [],
  );
}

/** Each statement file's name (`<use case>/<file>`) and the tables its SQL and the routines it calls write. */
function statementWrites(routines: Map<string, string[]>): Map<string, string[]> {
  const writes = new Map<string, string[]>();
  for (const file of statementFiles(STATEMENTS)) {
    const source = readFileSync(file, 'utf8');
    const sqlText = [...source.matchAll(/sql`([^`]*)`/g)].map((m) => m[1] ?? '').join('\n');
    const called = [...sqlText.matchAll(/\b(naaba_\w+)\s*\(/g)].flatMap((m) => routines.get(m[1] ?? '') ?? []);
    const name = relative(STATEMENTS, file).replace(/\.ts$/, '');
    writes.set(name, [...new Set([...writtenTables(sqlText), ...called])].sort());
  }
  return writes;
}

const GLOBAL = globalTables();
const WRITES = statementWrites(routineWrites());
const globalWriters = () =>
  [...WRITES].flatMap(([name, tables]) => {
    const global = tables.filter((t) => GLOBAL.has(t));
    return global.length > 0 ? [{ name, global }] : [];
  });

test('the GLOBAL tables are the keys, the OAuth clients and tokens, and the schema settings; the sweeper state is regional', () => {
  expect([...GLOBAL].sort()).toEqual(['api_keys', 'naaba_settings', 'oauth_clients', 'oauth_tokens']);
  const ddl = code(readFileSync(join(COCKROACH, '0022_sweeper_state.sql'), 'utf8'));
  expect(ddl).toMatch(
    /CREATE TABLE IF NOT EXISTS sweeper_state \(.*PRIMARY KEY \(region, name\) \) LOCALITY REGIONAL BY ROW AS region;/,
  );
});

test('no statement writes a GLOBAL table unless it is a key or OAuth change, or one of the listed operator commands', () => {
  const refused = globalWriters().filter(({ name }) => !KEY_OR_OAUTH.test(name) && !Object.hasOwn(ALLOWED, name));
  expect(refused).toEqual([]);
});

test('the scan sees writes: key and OAuth statements, the routines they call, and the sweeper writing its own state', () => {
  const writers = new Map(globalWriters().map(({ name, global }) => [name, global]));
  expect(writers.get('keys/insert-key')).toEqual(['api_keys']);
  expect(writers.get('oauth/create-grant')).toEqual(expect.arrayContaining(['api_keys', 'oauth_tokens']));
  for (const walk of ['maintenance/mark-expiring', 'maintenance/passages-write', 'maintenance/record-expiring-kinds']) {
    expect(WRITES.get(walk)).toContain('sweeper_state');
    expect(writers.has(walk)).toBe(false);
  }
  // Every allowance names a statement that exists and writes a GLOBAL table, so none outlives its reason.
  for (const name of Object.keys(ALLOWED)) expect(writers.has(name)).toBe(true);
});

test.each([
  ["UPDATE naaba_settings SET value = '{}' WHERE name = 'expiring_cursor'", ['naaba_settings']],
  ['INSERT INTO sweeper_state (region) VALUES ($1) ON CONFLICT (region) DO UPDATE SET value = excluded.value', ['sweeper_state']],
  ['WITH d AS (DELETE FROM public.oauth_tokens RETURNING 1) UPSERT INTO api_keys VALUES (1)', ['api_keys', 'oauth_tokens']],
  ['SELECT value FROM naaba_settings\n-- UPDATE memories', []],
])('writtenTables(%s) is %j', (text, tables) => {
  expect(writtenTables(text)).toEqual(tables);
});
