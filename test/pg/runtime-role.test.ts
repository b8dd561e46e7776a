import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { parseRuntimeGrants, runtimeGrantsText } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import { Container } from '../../lambda/composition.js';
import { environment, loadConfig } from '../../lambda/config/env.js';
import { storeSuite } from '../store/conformance.js';
import { sqlHarness } from '../store/harness.js';
import { redact } from '../store/url-harness.js';
import { runCli } from '../support/cli.js';
import { postgresForTests } from '../support/pg-server.js';

/**
 * Least-privilege database roles on a real server (decision 0069): the administrator's setup run
 * exactly as docs/deployment.md §2 writes it, `naaba migrate` as the owner (schema, then the runtime
 * grants), and the functions' login, a member of the runtime role, shown to be unable to change the
 * schema, yet able to run every store statement (the whole conformance suite runs as it). The
 * schema check of the functions runs here too. A throwaway PostgreSQL by default; with
 * NAABA_ROLES_ADMIN_URL an administrator's URL of another server (CockroachDB: its setup block).
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
  console.log(`runtime role on ${server ? `${server.version}, a throwaway cluster` : redact(adminUrl)}`);
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
  const app = urlOf('naaba_app_a');
  const regions = environment().NAABA_DB_REGIONS ?? 'eu-central-1,us-east-1';
  const migrated = await runCli(['migrate', '--url', owner, ...(cockroach ? ['--db-regions', regions] : [])]);
  const grants = parseRuntimeGrants(await runtimeGrantsText(cockroach ? 'cockroach' : 'postgres'));
  afterAll(async () => server?.stop());

  test('naaba migrate as the owner applies the schema, then the runtime grants', () => {
    expect([migrated.code, migrated.stderr]).toEqual([0, '']);
    expect(migrated.stdout).toMatch(/^applied: 0001_init\.sql, /);
    expect(migrated.stdout).toContain(
      `runtime role naaba_runtime: granted the DML of sql/${cockroach ? 'cockroach' : 'postgres'}/runtime-grants.sql`,
    );
  });

  describe("the functions' login cannot change the schema", () => {
    test.each([
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
      'DELETE FROM api_keys',
    ])('%s: refused for lack of privilege (42501)', async (statement) => {
      expect(await outcome(app, statement)).toBe('42501');
    });

    test('a GRANT it sends gives nothing away (PostgreSQL warns and grants nothing; CockroachDB refuses)', async () => {
      expect(['ok', '42501']).toContain(await outcome(app, 'GRANT ALL ON TABLE memories TO naaba_app_b'));
      const client = new pg.Client({ connectionString: owner });
      await client.connect();
      try {
        const { rows } = await client.query<{ truncate: boolean }>(
          sql`SELECT has_table_privilege('naaba_app_b', 'memories', 'TRUNCATE') AS truncate`,
        );
        expect(rows).toEqual([{ truncate: false }]);
      } finally {
        await client.end();
      }
    });

    test('while the owner can, on the same server (so the refusals above are about the role)', async () => {
      expect(await outcome(owner, 'CREATE TABLE owner_probe (id INT4)')).toBe('ok');
      expect(await outcome(owner, 'DROP TABLE owner_probe')).toBe('ok');
    });

    test('the second login of the role (for rotating the secret) can do the same work', async () => {
      expect(await outcome(urlOf('naaba_app_b'), 'SELECT count(*) FROM memories')).toBe('ok');
      expect(await outcome(urlOf('naaba_app_b'), 'CREATE TABLE intruder (id INT4)')).toBe('42501');
    });
  });

  // The store conformance suite's run on a real PostgreSQL: as the runtime login, so that it also
  // proves the login's grants suffice for everything the stores do.
  storeSuite(`as the runtime login naaba_app_a (${cockroach ? 'CockroachDB' : 'PostgreSQL'})`, 'sql', async () => {
    const sql = await PgSqlClient.connect({ url: app, maxConnections: 4, statementTimeoutMs: 60_000 });
    const ownerSql = await PgSqlClient.connect({ url: owner, maxConnections: 1, statementTimeoutMs: 60_000 });
    const tables = [...grants.keys()].filter((t) => !t.startsWith('naaba_'));
    return sqlHarness(sql, {
      // Emptying tables is not the runtime's right: the owner does it.
      reset: async () => {
        for (const table of ['memory_links', ...tables.filter((t) => t !== 'memory_links')])
          await ownerSql.exec(`DELETE FROM ${table}`);
      },
      close: async () => {
        await sql.close();
        await ownerSql.close();
      },
    });
  });

  describe('naaba migrate --check', () => {
    test("with the functions' login: current, and it cannot change the schema", async () => {
      const result = await runCli(['migrate', '--check', '--url', app]);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^current: the database has every migration this code knows/);
      expect(result.stdout).toContain("connected as naaba_app_a: cannot change the schema; right for the functions' secret");
    });

    test("with the owner: it says the owner can, and that it is wrong for the functions' secret", async () => {
      const result = await runCli(['migrate', '--check', '--url', owner, '--json']);

      expect(JSON.parse(result.stdout)).toMatchObject({
        state: 'current',
        compatible: true,
        role: 'naaba_owner',
        canChangeSchema: true,
      });
    });
  });

  describe('the functions refuse a schema they do not know', () => {
    const containerOn = () => new Container(loadConfig({ NAABA_DATABASE_URL: app, NAABA_LOG_LEVEL: 'SILENT' }));
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
        const check = await runCli(['migrate', '--check', '--url', app]);
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
        const check = await runCli(['migrate', '--check', '--url', app]);
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
