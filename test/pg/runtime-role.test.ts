import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { hashToken } from '../../lambda/auth/token.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { sqlHarness } from '../store/harness.js';
import { parseRuntimeGrants, runtimeGrantsText } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { Container } from '../../lambda/composition.js';
import { environment, loadConfig } from '../../lambda/config/env.js';
import { sweepRegion } from '../../lambda/region-sweep.js';
import { storeSuite } from '../store/conformance.js';
import { redact } from '../store/url-harness.js';
import { runCli } from '../support/cli.js';
import { postgresForTests } from '../support/pg-server.js';

/**
 * A database login per function on a real server (decisions 0069, 0093): the administrator's setup
 * run exactly as docs/deployment.md §2 writes it, `naaba migrate` as the owner (schema, routines,
 * then each function role's grants), and each function's login shown able to do its function's work
 * and refused (SQLSTATE 42501) every statement outside it: the authorizer reads keys and nothing
 * else, the MCP function writes no key (its grants go through the owner's routines), the sweeper
 * reads no key. The store conformance suite runs as the MCP login (keys issued as the owner, as the
 * operator issues them). A throwaway PostgreSQL by default; with NAABA_ROLES_ADMIN_URL an
 * administrator's URL of another server (CockroachDB: its setup block).
 */
const DATABASE = 'naaba_roles';
const PASSWORD = '…';
const given = environment().NAABA_ROLES_ADMIN_URL;
const server = given ? undefined : await postgresForTests('runtime role on real PostgreSQL (no DDL, every runtime statement)');
const adminUrl = given ?? server?.url;

/** The SQL block that follows `<!-- setup:NAME -->` in docs/deployment.md, for the test's database. */
function setupBlock(name: string): string[] {
  const doc = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
  const block = new RegExp(`<!-- setup:${name} -->\\s*\`\`\`sql\\n([\\s\\S]*?)\`\`\``).exec(doc)?.[1];
  if (!block) throw new Error(`docs/deployment.md has no setup:${name} block`);
  return block
    .split(';')
    .map((s) => s.replace(/\bnaaba\b(?!_)/g, DATABASE).trim())
    .filter((s) => s !== '');
}

/** The admin's URL with another user (the documented password) and database. */
function urlOf(user: string, database = DATABASE): string {
  const url = new URL(adminUrl ?? '');
  url.username = user;
  url.password = encodeURIComponent(PASSWORD);
  url.pathname = `/${database}`;
  return url.toString();
}

async function runAs(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE a statement fails with as `user`, or 'ok' when it ran. */
async function outcome(url: string, statement: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
    return 'ok';
  } catch (error) {
    return String((error as { code?: string }).code);
  } finally {
    await client.end();
  }
}

if (adminUrl) {
  const admin = new URL(adminUrl);
  const cockroach = /:26257$/.test(admin.host) || environment().NAABA_DB_ENGINE === 'cockroach';
  console.log(`function roles on ${server ? `${server.version}, a throwaway cluster` : redact(adminUrl)}`);
  if (cockroach) {
    await runAs(adminUrl, setupBlock('cockroach'));
  } else {
    await runAs(adminUrl, setupBlock('postgres:cluster'));
    await runAs(
      urlOf(admin.username || 'postgres', DATABASE).replace(`:${encodeURIComponent(PASSWORD)}@`, '@'),
      setupBlock('postgres:database'),
    );
  }
  const owner = urlOf('naaba_owner');
  const logins = { mcp: urlOf('naaba_mcp_a'), authorizer: urlOf('naaba_authorizer_a'), sweeper: urlOf('naaba_sweeper_a') };
  const regions = environment().NAABA_DB_REGIONS ?? 'eu-central-1,us-east-1';
  const region = regions.split(',')[0] ?? 'eu-central-1';
  const migrated = await runCli(['migrate', '--url', owner, ...(cockroach ? ['--db-regions', regions] : [])]);
  const grants = parseRuntimeGrants(await runtimeGrantsText(cockroach ? 'cockroach' : 'postgres'));
  const containerOf = (url: string) =>
    new Container(loadConfig({ NAABA_DATABASE_URL: url, NAABA_LOG_LEVEL: 'SILENT', NAABA_REGION: region }));
  afterAll(async () => server?.stop());

  test('naaba migrate as the owner applies the schema, then each function role its grants', () => {
    expect([migrated.code, migrated.stderr]).toEqual([0, '']);
    expect(migrated.stdout).toMatch(/^applied: 0001_init\.sql, /);
    expect(migrated.stdout).toContain(
      `function roles naaba_mcp (mcp), naaba_authorizer (authorizer), naaba_sweeper (sweeper): granted the DML of sql/${cockroach ? 'cockroach' : 'postgres'}/runtime-grants.sql`,
    );
  });

  const ddl = [
    'CREATE TABLE intruder (id INT4)',
    'ALTER TABLE memories ADD COLUMN intruder INT4',
    'ALTER TABLE api_keys DROP COLUMN name',
    'CREATE INDEX intruder ON memories (kind)',
    'DROP INDEX memories_expiring',
    'DROP TABLE journal',
    'TRUNCATE memories',
    'CREATE SCHEMA intruder',
    'CREATE VIEW intruder AS SELECT 1 AS one',
    'DELETE FROM naaba_migrations',
    'DELETE FROM naaba_settings',
  ];
  const uuid = '00000000-0000-4000-8000-0000000000aa';
  const writeKeys = [
    `INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at) VALUES ('${uuid}', 'x', 'minted', '${uuid}', '${region}', now())`,
    'UPDATE api_keys SET revoked_at = NULL',
    'DELETE FROM api_keys',
  ];
  const forbidden: Record<'mcp' | 'authorizer' | 'sweeper', string[]> = {
    authorizer: [
      ...ddl,
      ...writeKeys,
      'SELECT count(*) FROM memories',
      'SELECT count(*) FROM journal',
      'SELECT count(*) FROM oauth_clients',
      'SELECT count(*) FROM naaba_settings',
      `INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at) VALUES ('x', '${uuid}', 'access', now())`,
      `SELECT * FROM naaba_revoke_key('${uuid}', now())`,
    ],
    mcp: [...ddl, ...writeKeys],
    sweeper: [
      ...ddl,
      ...writeKeys,
      'SELECT count(*) FROM api_keys',
      `INSERT INTO memories (id) VALUES ('${uuid}')`,
      `SELECT * FROM naaba_revoke_key('${uuid}', now())`,
    ],
  };

  describe.each(Object.keys(forbidden) as ('mcp' | 'authorizer' | 'sweeper')[])("the %s function's login", (fn) => {
    test.each(forbidden[fn])('%s: refused for lack of privilege (42501)', async (statement) => {
      expect(await outcome(logins[fn], statement)).toBe('42501');
    });

    test('its second login (for rotating the secret) is refused the same, and reads the migration record', async () => {
      const second = urlOf(`naaba_${fn}_b`);
      expect(await outcome(second, 'CREATE TABLE intruder (id INT4)')).toBe('42501');
      expect(await outcome(second, 'SELECT count(*) FROM naaba_migrations')).toBe('ok');
    });

    test('naaba migrate --check with it: current, and it cannot change the schema', async () => {
      const result = await runCli(['migrate', '--check', '--url', logins[fn]]);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^current: the database has every migration this code knows/);
      expect(result.stdout).toContain(`connected as naaba_${fn}_a: cannot change the schema; right for the functions' secret`);
    });
  });

  test('a GRANT a login sends gives nothing away (PostgreSQL warns and grants nothing; CockroachDB refuses)', async () => {
    expect(['ok', '42501']).toContain(await outcome(logins.mcp, 'GRANT ALL ON TABLE memories TO naaba_sweeper_b'));
    const client = new pg.Client({ connectionString: owner });
    await client.connect();
    try {
      const { rows } = await client.query<{ truncate: boolean }>(
        sql`SELECT has_table_privilege('naaba_sweeper_b', 'memories', 'TRUNCATE') AS truncate`,
      );
      expect(rows).toEqual([{ truncate: false }]);
    } finally {
      await client.end();
    }
  });

  test('while the owner can, on the same server (so the refusals above are about the roles)', async () => {
    expect(await outcome(owner, 'CREATE TABLE owner_probe (id INT4)')).toBe('ok');
    expect(await outcome(owner, 'DROP TABLE owner_probe')).toBe('ok');
  });

  describe("each login does its function's work", () => {
    const ownerContainer = containerOf(owner);
    afterAll(async () => ownerContainer.close());

    test('the authorizer: allows a key the owner issued, refuses an unknown and a revoked one, looks an access token up', async () => {
      const keys = await ownerContainer.keys();
      const live = await keys.issue('authorizer work', region);
      const revoked = await keys.issue('authorizer revoked', region);
      await keys.revoke(revoked.keyId);
      const authorizer = containerOf(logins.authorizer);
      try {
        const { authorize } = await import('../../lambda/auth/authorize.js');
        const store = await authorizer.keyStore();
        const decide = (token: string) => authorize(token, region, store, undefined, new Date());

        expect((await decide(`Bearer ${live.token}`)).effect).toBe('allow');
        expect((await decide(`Bearer ${revoked.token}`)).effect).toBe('unauthorized');
        expect((await decide(`Bearer nb_${'y'.repeat(43)}`)).effect).toBe('unauthorized');
        expect(await store.findByAccessToken('a'.repeat(64), new Date())).toBeUndefined();
      } finally {
        await authorizer.close();
      }
    });

    test('the sweeper: a whole sweep of the region, and the vector cells of a partition', async () => {
      const sweeper = containerOf(logins.sweeper);
      try {
        const report = await sweepRegion(sweeper);
        expect(report.region).toBe(region);
        if (!cockroach) {
          const sql = await PgSqlClient.connect({ url: logins.sweeper, maxConnections: 1, statementTimeoutMs: 60_000 });
          try {
            const store = sqlMemoryStores(sql).maintenance;
            const scope = { region, userId: uuid };
            await store.buildCells(scope, 'fact', { cells: 2, rounds: 1, rowsPerStep: 100, memories: 0, cellsFor: null });
            await store.assignCells(scope, 'fact', 10);
            await store.refreshCells(scope, 'fact', { rowsPerStep: 100, memories: 0 });
            await store.dropCells(scope, 'fact', 0);
          } finally {
            await sql.close();
          }
        }
      } finally {
        await sweeper.close();
      }
    });
  });

  describe('a compromised MCP function mints no credential (issue 48, decision 0130)', () => {
    const ownerContainer = containerOf(owner);
    afterAll(async () => ownerContainer.close());
    const far = '2100-01-01T00:00:00Z';
    /** What the issue's intruder does: its own token, attached to someone else's real key. */
    const chosen = `nba_${'f'.repeat(43)}`;
    const people = async () => {
      const keys = await ownerContainer.keys();
      return { victim: await keys.issue('victim', region), intruder: await keys.issue('intruder', region) };
    };
    const rowsAs = async <Row extends object>(url: string, text: string, values: unknown[] = []): Promise<Row[]> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<Row>(text, values)).rows;
      } finally {
        await client.end();
      }
    };
    const decide = async (token: string, at = new Date()) => {
      const authorizer = containerOf(logins.authorizer);
      try {
        const { authorize } = await import('../../lambda/auth/authorize.js');
        return await authorize(`Bearer ${token}`, region, await authorizer.keyStore(), undefined, at);
      } finally {
        await authorizer.close();
      }
    };
    const keyIdOf = async (name: string) =>
      (
        await rowsAs<{ key_id: string }>(
          owner,
          'SELECT key_id::text AS key_id FROM api_keys WHERE name = $1 ORDER BY created_at DESC LIMIT 1',
          [name],
        )
      )[0]?.key_id ?? '';

    test("the issue's statement: a token of its choosing on another user's key, expiring in 2100, is refused (42501)", async () => {
      await people();
      const victim = await keyIdOf('victim');
      const statement = `INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at) VALUES ('${hashToken(chosen)}', '${victim}', 'access', '${far}')`;

      expect(await outcome(logins.mcp, statement)).toBe('42501');
      expect(await outcome(logins.mcp, `UPDATE oauth_tokens SET expires_at = '${far}'`)).toBe('42501');
      expect(await outcome(logins.mcp, 'DELETE FROM oauth_tokens')).toBe('42501');
    });

    test('nor can it make or rewrite a code for a key it does not hold (42501)', async () => {
      const victim = await keyIdOf('victim');
      expect(
        await outcome(
          logins.mcp,
          `INSERT INTO oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by) VALUES ('${region}', 'c', 'x', '${uuid}', 'a', 'r', 'c', 'r', '${far}', '${victim}')`,
        ),
      ).toBe('42501');
      expect(await outcome(logins.mcp, `UPDATE oauth_codes SET granted_by = '${victim}'`)).toBe('42501');
    });

    test('the grant routine that took a user and a region as arguments is no longer its to call (42501)', async () => {
      const { intruder } = await people();
      const victimUser = (
        await rowsAs<{ user_id: string }>(owner, "SELECT user_id::text AS user_id FROM api_keys WHERE name = 'victim' LIMIT 1")
      )[0]?.user_id;
      const intruderKey = await keyIdOf('intruder');
      const statement = `SELECT * FROM naaba_create_grant('${randomUUID()}', 'forged', '${victimUser}', '${region}', now(), 'x', '${hashToken(chosen)}', '${far}', 'r', '${far}', '${region}', 'c', '${intruderKey}')`;

      expect(intruder.token).toMatch(/^nb_/);
      expect(await outcome(logins.mcp, statement)).toBe('42501');
    });

    test("a code saved through the routine belongs to the key typed, whatever the caller claims; a key's hash is no key", async () => {
      const { intruder } = await people();
      const victim = await keyIdOf('victim');
      const victimHash = (
        await rowsAs<{ h: string }>(owner, 'SELECT token_sha256 AS h FROM api_keys WHERE key_id = $1', [victim])
      )[0]?.h;
      const save = (key: string, code: string) =>
        rowsAs<{ saved: number }>(
          logins.mcp,
          `SELECT saved FROM naaba_save_code($1, $2, $3, 'client-f', 'agent', 'https://a/cb', $4, 'https://r/mcp', now() + interval '1 minute', $5)`,
          [key, region, code, 'x'.repeat(43), `form-${code}`],
        );

      expect(await save(victimHash ?? '', 'code-h')).toEqual([{ saved: 0 }]);
      expect(await save(`nb_${'z'.repeat(43)}`, 'code-z')).toEqual([{ saved: 0 }]);
      expect(await save(intruder.token, 'code-i')).toEqual([{ saved: 1 }]);
      const [code] = await rowsAs<{ user_id: string; granted_by: string }>(
        owner,
        "SELECT user_id::text AS user_id, granted_by::text AS granted_by FROM oauth_codes WHERE code_sha256 = 'code-i'",
      );
      expect(code?.granted_by).toBe(await keyIdOf('intruder'));
    });

    test("a grant takes its user and region from the granting key's row, and its tokens' expiry is bounded", async () => {
      const { intruder } = await people();
      const intruderRow = (
        await rowsAs<{ user_id: string }>(
          owner,
          "SELECT user_id::text AS user_id FROM api_keys WHERE name = 'intruder' ORDER BY created_at DESC LIMIT 1",
        )
      )[0];
      await rowsAs(
        logins.mcp,
        `SELECT saved FROM naaba_save_code($1, $2, 'code-g', 'client-g', 'agent', 'https://a/cb', $3, 'https://r/mcp', now() + interval '1 minute', 'form-g')`,
        [intruder.token, region, 'x'.repeat(43)],
      );
      const access = `nba_${'g'.repeat(43)}`;
      const [made] = await rowsAs<{ created: number; tokens: number }>(
        logins.mcp,
        `SELECT created, tokens FROM naaba_grant_code($1, now(), $2, $3, 'refresh-g', $3, $4, 'code-g')`,
        [randomUUID(), hashToken(access), far, region],
      );
      expect(made).toEqual({ created: 1, tokens: 2 });
      const [token] = await rowsAs<{ within: boolean }>(
        owner,
        "SELECT expires_at <= now() + interval '1 hour' AS within FROM oauth_tokens WHERE token_sha256 = $1",
        [hashToken(access)],
      );
      expect(token).toEqual({ within: true });
      const decision = await decide(access);
      expect(decision).toMatchObject({ effect: 'allow', principal: { userId: intruderRow?.user_id, region } });
    });

    test("the authorizer refuses a token on a person's key, and one that outlives the hour, even when the owner wrote it", async () => {
      await people();
      const victim = await keyIdOf('victim');
      await runAs(owner, [
        `INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at) VALUES ('${hashToken(chosen)}', '${victim}', 'access', '${far}')`,
      ]);
      const [grant] = await rowsAs<{ key_id: string }>(
        owner,
        'SELECT key_id::text AS key_id FROM api_keys WHERE client_id IS NOT NULL LIMIT 1',
      );
      const long = `nba_${'l'.repeat(43)}`;
      await runAs(owner, [
        `INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at) VALUES ('${hashToken(long)}', '${grant?.key_id}', 'access', '${far}')`,
      ]);

      expect((await decide(chosen)).effect).toBe('unauthorized');
      expect((await decide(long)).effect).toBe('unauthorized');
    });

    test('rotation through the routine bounds what it issues too', async () => {
      const [grant] = await rowsAs<{ key_id: string; client_id: string }>(
        owner,
        'SELECT key_id::text AS key_id, client_id FROM api_keys WHERE client_id IS NOT NULL AND revoked_at IS NULL LIMIT 1',
      );
      const [rotated] = await rowsAs<{ issued: number }>(
        logins.mcp,
        `SELECT issued FROM naaba_rotate_refresh('refresh-g', now(), $1, 'access-r', $2, 'refresh-r', $2, now())`,
        [grant?.client_id, far],
      );
      expect(rotated).toEqual({ issued: 2 });
      const expiries = await rowsAs<{ kind: string; within: boolean }>(
        owner,
        "SELECT kind, expires_at <= now() + CASE kind WHEN 'access' THEN interval '1 hour' ELSE interval '30 days' END AS within FROM oauth_tokens WHERE token_sha256 IN ('access-r', 'refresh-r') ORDER BY kind",
      );
      expect(expiries).toEqual([
        { kind: 'access', within: true },
        { kind: 'refresh', within: true },
      ]);
    });
  });

  storeSuite(
    `as the MCP login naaba_mcp_a (${cockroach ? 'CockroachDB' : 'PostgreSQL'}; keys issued as the owner)`,
    'sql',
    async () => {
      const mcp = await PgSqlClient.connect({ url: logins.mcp, maxConnections: 4, statementTimeoutMs: 60_000 });
      const ownerSql = await PgSqlClient.connect({ url: owner, maxConnections: 1, statementTimeoutMs: 60_000 });
      const sweeperSql = await PgSqlClient.connect({ url: logins.sweeper, maxConnections: 1, statementTimeoutMs: 60_000 });
      const tables = [...new Set([...grants.values()].flatMap((lines) => [...lines.keys()]))].filter(
        (t) => !t.startsWith('naaba_'),
      );
      return sqlHarness(keysIssuedBy(ownerSql, mcp, sweeperSql), {
        // Emptying tables is not a function's right: the owner does it.
        reset: async () => {
          for (const table of ['memory_links', ...tables.filter((t) => t !== 'memory_links')])
            await ownerSql.exec(`DELETE FROM ${table}`);
        },
        close: async () => {
          await mcp.close();
          await ownerSql.close();
          await sweeperSql.close();
        },
      });
    },
  );

  test("naaba migrate --check with the owner: it says the owner can, and that it is wrong for the functions' secret", async () => {
    const result = await runCli(['migrate', '--check', '--url', owner, '--json']);

    expect(JSON.parse(result.stdout)).toMatchObject({
      state: 'current',
      compatible: true,
      role: 'naaba_owner',
      canChangeSchema: true,
    });
  });

  test('naaba migrate --check with a login in none of the roles: one line naming it and what to do, no stack trace', async () => {
    await runAs(adminUrl, [
      cockroach
        ? `CREATE USER naaba_stranger WITH PASSWORD '${PASSWORD}'`
        : `CREATE ROLE naaba_stranger LOGIN PASSWORD '${PASSWORD}'`,
      ...(cockroach ? [] : [`GRANT CONNECT ON DATABASE ${DATABASE} TO naaba_stranger`]),
    ]);

    const result = await runCli(['migrate', '--check', '--url', urlOf('naaba_stranger')]);

    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^naaba: naaba_stranger may not read naaba_migrations: it is in none of the roles `naaba migrate` grants \(naaba_mcp, naaba_authorizer, naaba_sweeper\).*docs\/deployment\.md §2\)$/,
      ),
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  describe('the functions refuse a schema they do not know', () => {
    const containerOn = () => containerOf(logins.mcp);
    /** A migration every release since OAuth has: deleting its record makes the database behind. */
    const oauthMigration = cockroach ? '0003_oauth.sql' : '0004_oauth.sql';
    test('a contract migration of newer code: refused, naming it and what to deploy; an expansion: served', async () => {
      await runAs(owner, [
        "INSERT INTO naaba_migrations (version, applied_at, requires) VALUES ('9999_drop_x.sql', now(), '9998_stop_using_x.sql')",
      ]);
      const refusing = containerOn();
      try {
        await expect(refusing.keys()).rejects.toThrow(SchemaError);
        await expect(refusing.keys()).rejects.toThrow(
          'the database has 9999_drop_x.sql, a contract migration for code that knows 9998_stop_using_x.sql, which this code predates',
        );
        const check = await runCli(['migrate', '--check', '--url', logins.mcp]);
        expect([check.code, check.stdout.split('\n')[1]]).toEqual([
          1,
          '  9999_drop_x.sql is a contract migration for code that knows 9998_stop_using_x.sql: this code must not run against it',
        ]);
      } finally {
        await refusing.close();
        await runAs(owner, ["UPDATE naaba_migrations SET requires = NULL WHERE version = '9999_drop_x.sql'"]);
      }
      const serving = containerOn();
      try {
        expect(await (await serving.keys()).list()).toBeInstanceOf(Array);
      } finally {
        await serving.close();
        await runAs(owner, ["DELETE FROM naaba_migrations WHERE version = '9999_drop_x.sql'"]);
      }
    });

    test('a database behind the code: refused, saying to run naaba migrate first', async () => {
      const missing = oauthMigration;
      await runAs(owner, [`DELETE FROM naaba_migrations WHERE version = '${missing}'`]);
      const container = containerOn();
      try {
        await expect(container.keys()).rejects.toThrow(
          `the database lacks ${missing}, which this code needs: run \`naaba migrate\` with this release before deploying it`,
        );
        const check = await runCli(['migrate', '--check', '--url', logins.mcp]);
        expect([check.code, check.stdout.split('\n')[0]]).toEqual([
          1,
          `behind: the database lacks ${missing}; run \`naaba migrate\` as the owner before deploying this code`,
        ]);
      } finally {
        await container.close();
        await runAs(owner, [`INSERT INTO naaba_migrations (version, applied_at) VALUES ('${missing}', now())`]);
      }
    });
  });
}

/**
 * The MCP login's client, but for the one statement the operator runs as the owner — issuing a
 * key — which the suite needs to have keys at all: the MCP function itself never inserts one; and
 * the purge of expired codes and tokens, which the sweeper's login sends (the MCP function writes
 * no credential table, decision 0130).
 */
function keysIssuedBy(owner: SqlClient, mcp: SqlClient, sweeper: SqlClient): SqlClient {
  const issued = (query: Query) => query.statement?.name === 'keys/insert-key';
  const swept = (query: Query) =>
    query.statement?.name === 'oauth/delete-expired-codes' || query.statement?.name === 'oauth/delete-expired-tokens';
  return {
    engine: mcp.engine,
    query: (query) => (issued(query) ? owner.query(query) : swept(query) ? sweeper.query(query) : mcp.query(query)),
    ...(mcp.read ? { read: mcp.read.bind(mcp) } : {}),
    ...(mcp.ceiling ? { ceiling: mcp.ceiling.bind(mcp) } : {}),
    ...(mcp.transaction ? { transaction: mcp.transaction.bind(mcp) } : {}),
    exec: (script) => mcp.exec(script),
    close: async () => undefined,
  };
}
