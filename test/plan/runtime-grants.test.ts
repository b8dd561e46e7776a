import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { parseRuntimeGrants, runtimeGrantsText } from '../../lambda/adapters/pg/schema/migrate.js';
import { freshDatabase } from '../support/database.js';
import { cascades, migratedTables, needsOf, runtimeNeeds } from '../support/runtime-sql.js';

/**
 * The runtime role's grants (decision 0069), one file per engine: a line for every table the
 * migrations create and no other, and on each table exactly the DML some runtime statement needs.
 * A migration that adds a table without its line, or a line that grants more than the statements
 * use, fails here; the real-server proof that the role can do its work and nothing else is
 * test/pg/runtime-role.test.ts.
 */
const grantsOf = async (engine: 'postgres' | 'cockroach') => parseRuntimeGrants(await runtimeGrantsText(engine));
/** Grants as `table:PRIVILEGE`, sorted. */
const asNeeds = (grants: ReadonlyMap<string, readonly string[]>) =>
  [...grants].flatMap(([table, privileges]) => privileges.map((p) => `${table}:${p}`)).sort();

test.each(['postgres', 'cockroach'] as const)(
  '%s: every table its migrations create has a line in runtime-grants.sql, and every line is such a table',
  async (engine) => {
    const grants = await grantsOf(engine);

    expect([...grants.keys()].sort()).toEqual(migratedTables(engine));
  },
);

test('postgres: the migrated schema itself (PGlite) has exactly the tables the grants name', async () => {
  const db = await freshDatabase();
  try {
    const rows = await db.query<{ name: string }>(
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const grants = await grantsOf('postgres');

    expect(rows.map((r) => r.name).sort()).toEqual([...grants.keys()].sort());
  } finally {
    await db.close();
  }
});

test("least privilege: PostgreSQL grants exactly what the runtime's statements need, table by table", async () => {
  const grants = await grantsOf('postgres');
  const needs = runtimeNeeds(new Set(grants.keys()));

  const granted = asNeeds(grants);
  const needed = [...needs.keys()].sort();

  // Unused grants name no module; missing ones name the module whose statement needs them.
  expect({ unused: granted.filter((g) => !needs.has(g as never)) }).toEqual({ unused: [] });
  expect({ missing: needed.filter((n) => !granted.includes(n)).map((n) => `${n} (${needs.get(n)?.join(', ')})`) }).toEqual({
    missing: [],
  });
  expect(granted.length).toBeGreaterThan(15);
});

/** Tables PostgreSQL has and CockroachDB does not: the vector arm's cells, which its vector index makes needless (decision 0083). */
const POSTGRES_ONLY = ['memory_cells'];

test('CockroachDB grants the same, plus DELETE on a table its cascades empty (cascades run as the deleting user there)', async () => {
  const [postgres, cockroach] = await Promise.all([grantsOf('postgres'), grantsOf('cockroach')]);
  const expected = new Map(
    [...postgres].filter(([table]) => !POSTGRES_ONLY.includes(table)).map(([table, privileges]) => [table, [...privileges]]),
  );
  for (const [child, parent] of cascades('cockroach')) {
    const privileges = expected.get(child) ?? [];
    if (postgres.get(parent)?.includes('DELETE') && !privileges.includes('DELETE'))
      expected.set(child, [...privileges, 'DELETE'].sort());
  }

  expect(asNeeds(cockroach)).toEqual(asNeeds(expected));
  expect(cascades('cockroach')).toContainEqual(['memory_links', 'memories']);
});

test.each([
  ['INSERT INTO memories (a) VALUES ($1)', ['memories:INSERT']],
  ['UPDATE api_keys SET revoked_at = now() WHERE key_id = $1', ['api_keys:SELECT', 'api_keys:UPDATE']],
  [
    'WITH gone AS (DELETE FROM journal WHERE at < $1 RETURNING 1) SELECT count(*) FROM gone',
    ['journal:DELETE', 'journal:SELECT'],
  ],
  ['INSERT INTO memories (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2', ['memories:INSERT', 'memories:UPDATE']],
  [
    'SELECT 1 FROM memories m JOIN memory_links l ON true FOR UPDATE',
    ['memories:SELECT', 'memory_links:SELECT', 'memory_links:UPDATE'],
  ],
  ["SELECT 'x' AS y FROM unnest($1) AS u, naaba_settings", []],
])('the reader of statements: %s needs %j', (text, expected) => {
  const tables = new Set(['memories', 'memory_links', 'api_keys', 'journal']);

  expect([...needsOf(text, tables)].sort()).toEqual(expected);
});
