import { sql } from '../../lambda/adapters/pg/sql/template.js';
import {
  parseFunctionGrants,
  parseRuntimeGrants,
  RUNTIME_ROLES,
  type RuntimeRole,
  runtimeGrantsText,
  type TableGrants,
} from '../../lambda/adapters/pg/schema/migrate.js';
import { freshDatabase } from '../support/database.js';
import {
  cascades,
  functionStatements,
  migratedTables,
  type Need,
  needsOf,
  runtimeNeeds,
  runtimeSqlSources,
} from '../support/runtime-sql.js';

/**
 * The function roles' grants (decisions 0069, 0093), one file per engine, one section per role:
 * a line for every table the migrations create in some role's section and no other, and on each
 * table exactly the DML the statements of that function need. The authorizer's and the sweeper's
 * statements are the ones their store calls send (recorded); the MCP function's are all the other
 * runtime statements. The real-server proof that each login can do its work and nothing else is
 * test/pg/runtime-role.test.ts.
 */
const grantsOf = async (engine: 'postgres' | 'cockroach') => parseRuntimeGrants(await runtimeGrantsText(engine));
/** Grants as `table:PRIVILEGE`, sorted. */
const asNeeds = (grants: TableGrants) =>
  [...grants].flatMap(([table, privileges]) => privileges.map((p) => `${table}:${p}`)).sort();
const needsOfAll = (texts: readonly string[], tables: ReadonlySet<string>) =>
  [...new Set(texts.flatMap((text) => [...needsOf(text, tables)]))].sort();

/** The routines a statement calls by name (the owner's, 0012_key_writes.sql). */
const calledRoutines = (texts: readonly string[]) =>
  [...new Set(texts.flatMap((text) => [...text.matchAll(/\bFROM\s+(naaba_[a-z_]+)\s*\(/g)].map((m) => m[1] ?? '')))].sort();

/** Statements only the sweeper sends, on tables the MCP function may not write. */
const SWEEPER_ONLY = ['statements/oauth/delete-expired-codes.ts', 'statements/oauth/delete-expired-tokens.ts'];

/** What each function needs on PostgreSQL, from its statements. */
async function neededByRole(tables: ReadonlySet<string>): Promise<Record<RuntimeRole, string[]>> {
  const { authorizer, sweeper, mcpKeys } = await functionStatements('postgres');
  // The MCP function: every runtime statement but the key statements, of which it sends only its own
  // calls' (the rest is the operator's key administration, run as the owner).
  // Nor the sweeper's purge of codes and tokens (only the region's sweep sends it): the MCP function
  // writes no credential table (decision 0130).
  const others = runtimeSqlSources()
    .filter((s) => !s.file.startsWith('statements/keys/') && !SWEEPER_ONLY.includes(s.file))
    .map((s) => s.text);
  const mcp = needsOfAll([...others, ...mcpKeys], tables);
  return { authorizer: needsOfAll(authorizer, tables), sweeper: needsOfAll(sweeper, tables), mcp };
}

test.each(['postgres', 'cockroach'] as const)(
  '%s: every table its migrations create has a line in some role, and every line is such a table',
  async (engine) => {
    const grants = await grantsOf(engine);
    const named = new Set([...grants.values()].flatMap((lines) => [...lines.keys()]));

    expect([...named].sort()).toEqual(migratedTables(engine));
  },
);

test('postgres: the migrated schema itself (PGlite) has exactly the tables the grants name', async () => {
  const db = await freshDatabase();
  try {
    const rows = await db.query<{ name: string }>(
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const grants = await grantsOf('postgres');
    const named = new Set([...grants.values()].flatMap((lines) => [...lines.keys()]));

    expect(rows.map((r) => r.name).sort()).toEqual([...named].sort());
  } finally {
    await db.close();
  }
});

test.each(RUNTIME_ROLES)('least privilege: PostgreSQL grants the %s role exactly what its statements need', async (role) => {
  const grants = await grantsOf('postgres');
  const tables = new Set(migratedTables('postgres'));
  const needed = (await neededByRole(tables))[role];

  const granted = asNeeds(grants.get(role) ?? new Map());

  expect({ role, unused: granted.filter((g) => !needed.includes(g)) }).toEqual({ role, unused: [] });
  expect({ role, missing: needed.filter((n) => !granted.includes(n)) }).toEqual({ role, missing: [] });
});

test('what the issue asks of each role (issue 31): the authorizer reads keys and nothing else, the MCP function writes no key, the sweeper reads none', async () => {
  for (const engine of ['postgres', 'cockroach'] as const) {
    const grants = await grantsOf(engine);

    expect(asNeeds(grants.get('authorizer') ?? new Map())).toEqual([
      'api_keys:SELECT',
      'naaba_migrations:SELECT',
      'oauth_tokens:SELECT',
    ]);
    expect(grants.get('mcp')?.get('api_keys')).toEqual(['SELECT']);
    expect(grants.get('sweeper')?.has('api_keys')).toBe(false);
    // Keys are issued by the operator, as the owner: no role may insert one.
    for (const role of RUNTIME_ROLES) {
      expect([engine, role, (grants.get(role)?.get('api_keys') ?? []).includes('INSERT')]).toEqual([engine, role, false]);
    }
  }
});

test("the MCP function's key, code and token writes go through the owner's routines, which only it may call", async () => {
  const routines = calledRoutines(runtimeSqlSources().map((s) => s.text));

  expect(routines).toEqual([
    'naaba_consume_code',
    'naaba_grant_code',
    'naaba_revoke_key',
    'naaba_rotate_refresh',
    'naaba_save_code',
  ]);
  for (const engine of ['postgres', 'cockroach'] as const) {
    const functions = parseFunctionGrants(await runtimeGrantsText(engine));
    expect([engine, [...(functions.get('mcp') ?? [])].sort()]).toEqual([engine, routines]);
    expect([engine, functions.get('authorizer'), functions.get('sweeper')]).toEqual([engine, [], []]);
  }
  // No runtime statement writes api_keys itself.
  const writes = runtimeNeeds(new Set(['api_keys']));
  expect(
    [...writes.entries()].filter(([need]) => need !== 'api_keys:SELECT').map(([need, files]) => `${need} (${files.join(', ')})`),
  ).toEqual(['api_keys:INSERT (statements/keys/insert-key.ts)']);
});

test('issue 48: the MCP function may only read the credential tables, and the grants file takes back what earlier releases gave', async () => {
  for (const engine of ['postgres', 'cockroach'] as const) {
    const text = await runtimeGrantsText(engine);
    const mcp = parseRuntimeGrants(text).get('mcp');

    expect([engine, mcp?.get('api_keys'), mcp?.get('oauth_tokens'), mcp?.get('oauth_codes')]).toEqual([
      engine,
      ['SELECT'],
      ['SELECT'],
      ['SELECT'],
    ]);
    expect(text).toMatch(/^REVOKE INSERT, UPDATE, DELETE ON TABLE oauth_tokens FROM \{\{mcp_role\}\};$/m);
    expect(text).toMatch(/^REVOKE INSERT, UPDATE, DELETE ON TABLE oauth_codes FROM \{\{mcp_role\}\};$/m);
    expect(text).toMatch(/^REVOKE EXECUTE ON FUNCTION naaba_create_grant\(.*\) FROM \{\{mcp_role\}\};$/m);
  }
});

/** Tables PostgreSQL has and CockroachDB does not: the vector arm's cells, which its vector index makes needless (decision 0083). */
const POSTGRES_ONLY = ['memory_cells'];

test('CockroachDB grants each role the same, plus DELETE on a table its cascades empty (cascades run as the deleting user there)', async () => {
  const [postgres, cockroach] = await Promise.all([grantsOf('postgres'), grantsOf('cockroach')]);
  for (const role of RUNTIME_ROLES) {
    const pg = postgres.get(role) ?? new Map<string, readonly string[]>();
    const expected = new Map(
      [...pg].filter(([table]) => !POSTGRES_ONLY.includes(table)).map(([table, privileges]) => [table, [...privileges]]),
    );
    for (const [child, parent] of cascades('cockroach')) {
      const privileges = expected.get(child) ?? [];
      if (pg.get(parent)?.includes('DELETE') && !privileges.includes('DELETE'))
        expected.set(child, [...privileges, 'DELETE'].sort());
    }

    expect([role, asNeeds(cockroach.get(role) ?? new Map())]).toEqual([role, asNeeds(expected)]);
  }
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

  expect([...needsOf(text, tables)].sort()).toEqual(expected as Need[]);
});
