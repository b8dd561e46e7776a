import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { main } from '../../bin/remote/cli.js';
import { verifyRemote } from '../../bin/remote/verify.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint();
});
afterAll(async () => endpoint.close());

const memoriesOf = async (userId: string) =>
  Number(
    (
      await endpoint.sql.query<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM memories WHERE user_id = ${param('userId', userId)}::uuid`,
      )
    )[0]?.n,
  );

test('against the local endpoint every check passes with two users, and nothing is left behind', async () => {
  const [alice, bob] = [await endpoint.issueKey('verify-alice'), await endpoint.issueKey('verify-bob')];

  const report = await verifyRemote({ url: endpoint.mcpUrl, token: alice.token, token2: bob.token });

  expect(report.results.filter((r) => r.status !== 'pass')).toEqual([]);
  expect(report.results.map((r) => r.name)).toEqual([
    'GET /healthz answers 200',
    'POST /mcp without a token is refused with 401 and WWW-Authenticate: Bearer',
    'OAuth discovery as the MCP SDK does it: resource metadata, then the authorization server',
    'connect with the token and list the tools',
    'remember a throwaway session memory',
    'recall finds it',
    'connect with the second token',
    "the second user's recall does not see it",
    "the second user's forget cannot delete it",
    'forget deletes it, and recall no longer finds it',
  ]);
  expect(report.ok).toBe(true);
  expect([await memoriesOf(alice.userId), await memoriesOf(bob.userId)]).toEqual([0, 0]);
});

test('a second key of the same user fails the isolation check, and the probe is still removed', async () => {
  const first = await endpoint.issueKey('same-user-a');
  const second = await endpoint.issueKey('same-user-b', undefined, first.userId);

  const report = await verifyRemote({ url: endpoint.mcpUrl, token: first.token, token2: second.token });

  expect(report.ok).toBe(false);
  const failed = report.results.filter((r) => r.status === 'fail');
  expect(failed.map((r) => [r.name, r.detail])).toEqual([
    [
      "the second user's recall does not see it",
      'the second token sees the first token’s memory: are both keys of the same user?',
    ],
    ["the second user's forget cannot delete it", expect.stringContaining('still there: false')],
    ['forget deletes it, and recall no longer finds it', expect.stringContaining('"count":0')],
  ]);
  expect(await memoriesOf(first.userId)).toBe(0);
});

test('an unknown token fails at connect and skips what needs a connection', async () => {
  const report = await verifyRemote({ url: `${endpoint.url}/`, token: `nb_${'x'.repeat(43)}` });

  expect(report.ok).toBe(false);
  expect(report.results.map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'fail', 'skip', 'skip', 'skip', 'skip']);
});

describe('the command line', () => {
  test('prints one line per check, never a token, and exits 0 when all pass', async () => {
    const [alice, bob] = [await endpoint.issueKey('cli-alice'), await endpoint.issueKey('cli-bob')];
    const printed: string[] = [];

    const status = await main(['--url', endpoint.mcpUrl, '--token', alice.token, '--token2', bob.token], (t) => printed.push(t));

    const output = printed.join('\n');
    expect(status).toBe(0);
    expect(output.match(/^ {2}✓ /gm)).toHaveLength(10);
    expect(output).toMatch(/all 10 checks passed$/);
    for (const secret of [alice.token, bob.token]) expect(output).not.toContain(secret.slice(3));
  });

  test('exits 1 when a check fails, and 2 on a usage error', async () => {
    const quiet = () => undefined;

    expect(await main(['--url', endpoint.mcpUrl, '--token', `nb_${'y'.repeat(43)}`], quiet)).toBe(1);
    expect(await main(['--url', endpoint.mcpUrl], quiet)).toBe(2);
    expect(await main(['--url', endpoint.mcpUrl, '--tokn', 'x'], quiet)).toBe(2);
  });
});
