import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { runCli } from '../support/cli.js';
import { freshDatabase } from '../support/database.js';
import { freePort } from '../support/ports.js';

/**
 * The URL `issue-key` tells the operator to give an MCP client: against a cluster it is the
 * region's deployed endpoint (a setting, or where to read the stack output), never a local
 * address; locally it stays the local server's.
 */

const DEPLOYED = 'https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1/mcp';
const LOCAL_ADDRESS = /127\.0\.0\.1|localhost|\[::1\]/;

let db: PgliteSqlClient;
let server: PGLiteSocketServer;
let cluster: string[];
const dataDir = mkdtempSync(join(tmpdir(), 'naaba-endpoint-'));

beforeAll(async () => {
  db = await freshDatabase();
  // pglite-socket serves one shared session and ignores start-up options: set the isolation the store requires on it.
  await db.exec('SET default_transaction_isolation = serializable');
  const port = await freePort();
  server = new PGLiteSocketServer({ db: db.db, host: '127.0.0.1', port, maxConnections: 4 });
  await server.start();
  cluster = ['--url', `postgresql://postgres@127.0.0.1:${port}/postgres`, '--region', 'eu-central-1'];
});
afterAll(async () => {
  await server.stop();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const keyCount = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys'))[0]?.n;

test('against a cluster without an endpoint setting: the stack output McpUrl and the command that reads it, no local address', async () => {
  const result = await runCli(['issue-key', 'cluster agent', ...cluster]);

  expect(result.code).toBe(0);
  expect(result.stdout).toContain('McpUrl');
  expect(result.stdout).toContain('aws cloudformation describe-stacks --region eu-central-1 --stack-name naaba-eu-central-1');
  expect(result.stdout).toContain(`--query "Stacks[0].Outputs[?OutputKey=='McpUrl'].OutputValue" --output text`);
  expect(result.stdout).toContain('--endpoint URL');
  expect(result.stdout).not.toMatch(LOCAL_ADDRESS);
});

test.each([
  ['--endpoint', ['--endpoint', DEPLOYED], {}],
  ['NAABA_ENDPOINT_URL', [], { NAABA_ENDPOINT_URL: DEPLOYED }],
])('against a cluster with %s: that URL is printed', async (_how, args, env) => {
  const result = await runCli(['issue-key', 'told agent', ...cluster, ...args], env);

  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`  URL:     ${DEPLOYED}\n`);
  expect(result.stdout).not.toMatch(LOCAL_ADDRESS);
});

test('--json carries the URL, or null against a cluster where it is not known', async () => {
  const known = await runCli(['issue-key', 'json agent', ...cluster, '--endpoint', DEPLOYED, '--json']);
  const unknown = await runCli(['issue-key', 'json agent 2', ...cluster, '--json']);

  expect(JSON.parse(known.stdout)).toMatchObject({ url: DEPLOYED, region: 'eu-central-1' });
  expect(JSON.parse(unknown.stdout)).toMatchObject({ url: null, region: 'eu-central-1' });
});

test.each([
  ['in plain http', 'http://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1/mcp'],
  ['without the /mcp path', 'https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1'],
  ['that is not a URL', 'a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1/mcp'],
  ['with a query', `${DEPLOYED}?x=1`],
])('an endpoint %s is refused with one clear line, and no key is issued', async (_what, endpoint) => {
  const before = await keyCount();

  const result = await runCli(['issue-key', 'refused agent', ...cluster, '--endpoint', endpoint]);

  expect(result.code).toBe(1);
  expect(result.stderr).toContain('NAABA_ENDPOINT_URL=');
  expect(result.stderr).toContain('https://ID.execute-api.REGION.amazonaws.com/STAGE/mcp');
  expect(result.stdout).not.toContain('nb_');
  expect(await keyCount()).toBe(before);
});

test('a CockroachDB Cloud region name reads the stack of its AWS region', async () => {
  const result = await runCli(['issue-key', 'cloud agent', ...cluster, '--region', 'aws-eu-central-1']);

  expect(result.code).toBe(0);
  expect(result.stdout).toContain('region aws-eu-central-1');
  expect(result.stdout).toContain('--region eu-central-1 --stack-name naaba-eu-central-1');
});

test('locally, without a server, the URL is the local endpoint the settings name', async () => {
  const result = await runCli(['issue-key', 'local agent', '--data', dataDir, '--port', '9123']);

  expect(result.code).toBe(0);
  expect(result.stdout).toContain('  URL:     http://127.0.0.1:9123/mcp\n');
  expect(result.stdout).not.toContain('McpUrl');
});
