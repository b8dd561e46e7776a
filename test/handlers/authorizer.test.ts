import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { handler } from '../../lambda/handlers/authorizer.js';
import { lambdaContext, STAGE_ARN, tokenEvent } from './events.js';
import { type HandlerRuntime, installRuntime, REGION } from './runtime.js';

let runtime: HandlerRuntime;
beforeAll(async () => {
  runtime = await installRuntime();
});
afterAll(async () => runtime.close());

const authorizeWith = (authorization: string): Promise<APIGatewayAuthorizerResult> =>
  handler(tokenEvent(authorization), lambdaContext('naaba-authorizer'));

/** IAM's reading of a policy resource: `*` matches any run of characters. */
const covers = (resource: string, arn: string) =>
  new RegExp(
    `^${resource
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(arn);

test('a valid key of this region is allowed, with its principal as context', async () => {
  const key = await runtime.issue('claude-desktop');

  const result = await authorizeWith(`Bearer ${key.token}`);

  expect(result.principalId).toBe(key.userId);
  const [statement, ...others] = result.policyDocument.Statement as { Action: string; Effect: string; Resource: string }[];
  expect(others).toEqual([]);
  expect(statement).toMatchObject({ Action: 'execute-api:Invoke', Effect: 'Allow' });
  // The result is cached per token: it must cover the authorized route whatever method ARN came first.
  expect(covers(statement?.Resource ?? '', `${STAGE_ARN}/POST/mcp`)).toBe(true);
  expect(covers(statement?.Resource ?? '', 'arn:aws:execute-api:eu-central-1:123456789012:otherapi/v1/POST/mcp')).toBe(false);
  expect(result.context).toEqual({ userId: key.userId, region: REGION, agent: 'claude-desktop', keyId: key.keyId });
});

test('two calls on one warm authorizer both succeed', async () => {
  const key = await runtime.issue('warm');

  const first = await authorizeWith(`Bearer ${key.token}`);
  const second = await authorizeWith(`Bearer ${key.token}`);

  expect([first.principalId, second.principalId]).toEqual([key.userId, key.userId]);
});

describe('refusals', () => {
  const wellFormedUnknown = `nb_${'A'.repeat(43)}`;
  const cases: [string, () => Promise<string>][] = [
    ['missing', async () => ''],
    ['not a bearer scheme', async () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['a bearer without the naaba prefix', async () => `Bearer ${'x'.repeat(46)}`],
    ['a truncated token', async () => `Bearer ${(await runtime.issue('truncated')).token.slice(0, -1)}`],
    ['a token without the scheme', async () => (await runtime.issue('bare')).token],
    ['a well-formed unknown token', async () => `Bearer ${wellFormedUnknown}`],
    [
      'a revoked key',
      async () => {
        const key = await runtime.issue('revoked');
        await (await runtime.container.keys()).revoke(key.keyId);
        return `Bearer ${key.token}`;
      },
    ],
  ];

  test.each(cases)('%s: 401 (the authorizer throws Unauthorized)', async (_name, authorization) => {
    const header = await authorization();

    await expect(authorizeWith(header)).rejects.toThrow(/^Unauthorized$/);
  });

  test("another region's key: an explicit Deny naming the key's region (403)", async () => {
    const key = await runtime.issue('traveller', 'us-east-1');

    const result = await authorizeWith(`Bearer ${key.token}`);

    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${STAGE_ARN}/POST/mcp` },
    ]);
    expect(result.context).toEqual({ keyRegion: 'us-east-1' });
    expect(JSON.stringify(result)).not.toContain(key.userId);
  });
});
