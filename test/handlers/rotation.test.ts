import { jest } from '@jest/globals';
import pg from 'pg';
import { type AwsStandIn, secretsAnswer, startAwsStandIn } from '../support/aws-stand-in.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { capturedOutput } from '../support/output.js';
import { postgresForTests } from '../support/pg-server.js';
import { lambdaContext, mcpCall, tokenEvent } from './events.js';
import { migrateAsOwner, secretsStandInEnvironment } from './process-env.js';

/**
 * Rotation without downtime (decision 0092), on warm containers: the MCP function and the
 * authorizer run against a real PostgreSQL whose two logins must give their passwords, and read
 * their secret through the real SDK client from a Secrets Manager stand-in. The runbook's
 * leaked-password path — the other login gets a new password, the secret moves to it, the leaked
 * login may no longer log in and its sessions are ended — costs each container at most one failed
 * call: a refused login makes it read the secret again and retry once.
 */
const server = await postgresForTests('rotation of the database login on warm containers', {
  passwordRoles: ['rot_a', 'rot_b'],
});
const SECRET = 'naaba/test/database';
const REGION = 'eu-central-1';

if (server) {
  jest.setTimeout(HEAVY_STEP_MS);
  const urlOf = (role: string, password: string) => {
    const url = new URL(server.url);
    url.username = role;
    url.password = password;
    return url.toString();
  };
  const secrets: Record<string, string> = { [SECRET]: urlOf('rot_a', 'a-first') };
  let standIn: AwsStandIn;
  let admin: pg.Client;
  let restoreEnvironment: () => void;
  const reads = () => standIn.requests.filter((r) => r.target === 'secretsmanager.GetSecretValue').length;

  beforeAll(async () => {
    standIn = await startAwsStandIn(secretsAnswer(secrets));
    restoreEnvironment = secretsStandInEnvironment(standIn.url, REGION, {
      // Read when the handlers' logger is made, at their import below.
      NAABA_LOG_LEVEL: 'WARN',
    });
    await migrateAsOwner(server.url);
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    for (const statement of [
      "CREATE ROLE rot_a LOGIN PASSWORD 'a-first'",
      "CREATE ROLE rot_b LOGIN PASSWORD 'b-first'",
      'GRANT USAGE ON SCHEMA public TO rot_a, rot_b',
      'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO rot_a, rot_b',
    ]) {
      await admin.query(statement);
    }
  });
  afterAll(async () => {
    await admin?.end();
    await standIn?.close();
    restoreEnvironment?.();
    await server.stop();
  });

  /** Who the database sees logged in for the application, by login. */
  const sessions = async () =>
    (
      await admin.query<{ usename: string; n: number }>(
        "SELECT usename, count(*)::int AS n FROM pg_stat_activity WHERE usename IN ('rot_a', 'rot_b') GROUP BY usename ORDER BY usename",
      )
    ).rows;

  test("the leaked-password path: the warm authorizer and MCP function fail at most one call each, and move to the secret's new login", async () => {
    const { Container, installContainer } = await import('../../lambda/composition.js');
    const { loadConfig } = await import('../../lambda/config/env.js');
    const config = loadConfig({
      NAABA_DATABASE_SECRET_ID: SECRET,
      NAABA_DB_ENGINE: 'postgres',
      NAABA_EMBEDDING_DIMENSIONS: '256',
      NAABA_REGION: REGION,
      NAABA_ALLOWED_HOSTS: '*',
      NAABA_LOG_LEVEL: 'WARN',
    });
    const container = new Container(config);
    installContainer(container);
    const [{ handler: authorize }, { handler: mcp }] = await Promise.all([
      import('../../lambda/handlers/authorizer.js'),
      import('../../lambda/handlers/endpoint.js'),
    ]);
    try {
      const key = await (await container.keys()).issue('rotation', REGION);
      const principal = { userId: key.userId, region: REGION, agent: key.name, keyId: key.keyId };
      /** One authorizer call and one recall, each as a failure or not. */
      const calls = async (): Promise<{ authorizer: boolean; mcp: boolean; output: string }> => {
        const authorized = await capturedOutput(async () => {
          try {
            await authorize(tokenEvent(`Bearer ${key.token}`), lambdaContext('naaba-authorizer'));
            return true;
          } catch {
            return false;
          }
        });
        const recalled = await capturedOutput(() =>
          mcp(mcpCall('tools/call', { name: 'recall', arguments: { query: 'anything' } }, principal), lambdaContext('naaba-mcp')),
        );
        const answer = recalled.value as { statusCode: number; body: string };
        const ok = answer.statusCode === 200 && !answer.body.includes('"isError":true');
        return {
          authorizer: authorized.value === true,
          mcp: ok,
          output: `${authorized.output}${recalled.output}${ok ? '' : answer.body}`,
        };
      };

      const warm = await calls();
      expect([warm.authorizer, warm.mcp]).toEqual([true, true]);
      expect(await sessions()).toEqual([{ usename: 'rot_a', n: expect.any(Number) }]);
      expect(reads()).toBe(1);

      // docs/runbook.md, "Rotate the database secret without downtime", when a password leaked:
      await admin.query("ALTER ROLE rot_b PASSWORD 'b-second'");
      secrets[SECRET] = urlOf('rot_b', 'b-second');
      await admin.query('ALTER ROLE rot_a NOLOGIN');
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'rot_a'");

      const after = [];
      for (let i = 0; i < 5; i += 1) after.push(await calls());

      const failed = { authorizer: after.filter((c) => !c.authorizer).length, mcp: after.filter((c) => !c.mcp).length };
      expect(failed.authorizer).toBeLessThanOrEqual(1);
      expect(failed.mcp).toBeLessThanOrEqual(1);
      expect(after.slice(-3).map((c) => [c.authorizer, c.mcp])).toEqual([
        [true, true],
        [true, true],
        [true, true],
      ]);
      expect(await sessions()).toEqual([{ usename: 'rot_b', n: expect.any(Number) }]);
      // One more read of the secret for the refused login, whoever met it first: not one per call.
      expect(reads()).toBe(2);
      const said = after.map((c) => c.output).join('\n');
      expect(said).toContain('database refused the login: reading its secret again');
      expect(said).not.toContain('b-second');

      // A password changed under a warm container (28P01): a forced read waits out its interval, then moves it.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      await admin.query("ALTER ROLE rot_a LOGIN PASSWORD 'a-second'");
      secrets[SECRET] = urlOf('rot_a', 'a-second');
      await admin.query("ALTER ROLE rot_b PASSWORD 'b-third'");
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'rot_b'");
      const again = [];
      for (let i = 0; i < 3; i += 1) again.push(await calls());
      expect(again.filter((c) => !c.authorizer || !c.mcp).length).toBeLessThanOrEqual(1);
      expect(again.at(-1)).toMatchObject({ authorizer: true, mcp: true });
      expect(await sessions()).toEqual([{ usename: 'rot_a', n: expect.any(Number) }]);
    } finally {
      installContainer(undefined);
      await container.close();
    }
  });

  test('a secret that still holds the refused login is read once more, not retried with it: the call fails', async () => {
    const { PgSqlClient: Client } = await import('../../lambda/adapters/pg/pg-client.js');
    let forced = 0;
    const refused = { url: urlOf('rot_b', 'not-the-password') };
    const client = await Client.connect({
      url: urlOf('rot_a', 'a-second'),
      maxConnections: 1,
      statementTimeoutMs: 10_000,
      engine: 'postgres',
      source: async (force) => {
        if (force) forced += 1;
        return refused;
      },
    }).catch((error: unknown) => error);

    expect(client).toMatchObject({ code: '28P01' });
    expect(forced).toBe(1);
  });
}
