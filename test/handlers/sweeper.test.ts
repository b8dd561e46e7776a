import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { handler as mcp } from '../../lambda/handlers/endpoint.js';
import { handler as sweep } from '../../lambda/handlers/sweeper.js';
import { lambdaContext, mcpCall, scheduledEvent } from './events.js';
import { contextOf, type HandlerRuntime, installRuntime, REGION } from './runtime.js';

let runtime: HandlerRuntime;
beforeAll(async () => {
  runtime = await installRuntime();
});
afterAll(async () => runtime.close());

test('the scheduled sweeper deletes an expired session memory; a second warm run finds nothing left', async () => {
  const principal = contextOf(await runtime.issue('sweeper-tests'));
  const remember = mcpCall(
    'tools/call',
    { name: 'remember', arguments: { content: 'Working on the CDK stack.', kind: 'session' } },
    principal,
  );
  expect((await mcp(remember, lambdaContext('naaba-mcp'))).statusCode).toBe(200);
  runtime.clock.advance(25 * 3600);

  const first = await sweep(scheduledEvent(), lambdaContext('naaba-sweeper'));
  const second = await sweep(scheduledEvent(), lambdaContext('naaba-sweeper'));

  expect(first).toMatchObject({ region: REGION, expired: { session: 1 }, trimmed: 0, incomplete: false });
  expect(second).toMatchObject({ region: REGION, expired: { session: 0 }, trimmed: 0, incomplete: false });
});

test('OAuth codes and tokens go a day after they expire, not before', async () => {
  const now = runtime.clock.now().getTime();
  const at = (hours: number) => new Date(now + hours * 3_600_000);
  const code = (hash: string, expires: Date) =>
    runtime.sql.query(sql`INSERT INTO oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at)
       VALUES (${param('value', REGION)}, ${param('value', hash)}, 'c', gen_random_uuid(), 'a', 'https://a/cb', 'x', 'https://r/mcp', ${param('value', expires)}::timestamptz)`);
  const token = (hash: string, expires: Date) =>
    runtime.sql.query(
      sql`INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at) VALUES (${param('value', hash)}, gen_random_uuid(), 'refresh', ${param('value', expires)}::timestamptz)`,
    );
  await code('old-code', at(-25));
  await code('recent-code', at(-1));
  await token('old-token', at(-48));
  await token('recent-token', at(-23));
  await token('live-token', at(5));

  const report = await sweep(scheduledEvent(), lambdaContext('naaba-sweeper'));

  expect(report.oauthExpired).toBe(2);
  const left = await runtime.sql.query<{ h: string }>(
    sql`SELECT code_sha256 AS h FROM oauth_codes UNION ALL SELECT token_sha256 FROM oauth_tokens ORDER BY h`,
  );
  expect(left.map((r) => r.h)).toEqual(['live-token', 'recent-code', 'recent-token']);
});
