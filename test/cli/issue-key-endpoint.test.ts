import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { runBinary, runCli } from '../support/cli.js';
import { freshDatabase } from '../support/database.js';
import { makeTestAuthority } from '../store/tls-support.js';
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

const keyCount = async () => (await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM api_keys`))[0]?.n;

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

describe('an endpoint of another region than the key is refused before a key is made', () => {
  test('an execute-api URL names its region: eu-central-1 for a key of aws-us-east-1 is refused, with the right command', async () => {
    const before = await keyCount();

    const result = await runCli(['issue-key', 'wrong region', ...cluster, '--region', 'aws-us-east-1', '--endpoint', DEPLOYED]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`NAABA_ENDPOINT_URL="${DEPLOYED}" is the endpoint of AWS region eu-central-1`);
    expect(result.stderr).toContain('the key is for region aws-us-east-1: a client given both would get 403');
    expect(result.stderr).toContain('aws cloudformation describe-stacks --region us-east-1 --stack-name naaba-us-east-1');
    expect(result.stdout).not.toContain('nb_');
    expect(await keyCount()).toBe(before);
  });

  describe('a custom domain is asked through its /healthz', () => {
    const authority = makeTestAuthority();
    let endpoint: Server;
    let said = 'aws-us-east-1';
    let url: string;
    beforeAll(async () => {
      endpoint = createServer({ cert: readFileSync(authority.certFile), key: readFileSync(authority.keyFile) }, (req, res) => {
        res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url === '/healthz' ? { status: 'ok', region: said } : { message: 'not found' }));
      });
      await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
      url = `https://localhost:${(endpoint.address() as AddressInfo).port}/mcp`;
    });
    afterAll(async () => {
      await new Promise((resolve) => endpoint.close(resolve));
      authority.remove();
    });
    // A minute for /healthz: a slow answer on a busy machine would read as one that cannot be asked.
    const trusted = () => ({ NODE_EXTRA_CA_CERTS: authority.caFile, NAABA_HEALTHZ_TIMEOUT_MS: '60000' });
    // Node reads NODE_EXTRA_CA_CERTS when a process starts: a trusted endpoint is asked by the real binary.

    test('serving another region: refused, naming what /healthz said', async () => {
      said = 'aws-us-east-1';
      const before = await keyCount();

      const result = await runBinary(['issue-key', 'domain agent', ...cluster, '--endpoint', url], trusted());

      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'is the endpoint of region aws-us-east-1 (its /healthz says so), but the key is for region eu-central-1',
      );
      expect(await keyCount()).toBe(before);
    });

    test("serving the key's region: the key is issued with that URL", async () => {
      said = 'eu-central-1';

      const result = await runBinary(['issue-key', 'domain agent', ...cluster, '--endpoint', url], trusted());

      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`  URL:     ${url}\n`);
    });

    test('that cannot be asked (here: its certificate is not trusted): the key is issued, with a warning that the region is unconfirmed', async () => {
      const result = await runCli(['issue-key', 'domain agent', ...cluster, '--endpoint', url]);

      expect(result.code).toBe(0);
      expect(result.stderr).toContain('could not ask');
      expect(result.stderr).toContain('make sure it is the endpoint of region eu-central-1');
    });
  });
});
