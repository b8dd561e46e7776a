import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { handler as mcp } from '../../lambda/handlers/endpoint.js';
import { lambdaContext, proxyEvent } from './events.js';
import { type HandlerRuntime, installRuntime } from './runtime.js';

/**
 * The OAuth routes through the Lambda handler with API Gateway's event shape: the issuer is the
 * stage URL built from the request context (domain and stage), never from the Host header.
 */

let runtime: HandlerRuntime;
beforeAll(async () => {
  runtime = await installRuntime();
});
afterAll(async () => runtime.close());

const STAGE_URL = 'https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1';

test.each([
  ['/.well-known/oauth-authorization-server', 'issuer', STAGE_URL],
  ['/.well-known/oauth-protected-resource/mcp', 'resource', `${STAGE_URL}/mcp`],
])('GET %s names the stage URL (%s), whatever Host says', async (path, field, expected) => {
  const event = proxyEvent({ method: 'GET', path, headers: { Host: 'spoofed.example' } });

  const result = await mcp(event, lambdaContext('naaba-mcp'));

  expect(result.statusCode).toBe(200);
  expect((JSON.parse(result.body) as Record<string, unknown>)[field]).toBe(expected);
});

test('registration through the handler stores the client and answers RFC 7591 JSON', async () => {
  const event = proxyEvent({
    method: 'POST',
    path: '/oauth/register',
    body: { client_name: 'Lambda Client', redirect_uris: ['https://app.example/cb'] },
  });

  const result = await mcp(event, lambdaContext('naaba-mcp'));
  const body = JSON.parse(result.body) as { client_id: string };

  expect(result.statusCode).toBe(201);
  const rows = await runtime.sql.query<{ client_name: string }>(
    sql`SELECT client_name FROM oauth_clients WHERE client_id = ${param('value', body.client_id)}`,
  );
  expect(rows).toEqual([{ client_name: 'Lambda Client' }]);
});

test('the consent page sets its CSRF cookie on the stage path, Secure', async () => {
  const register = proxyEvent({ method: 'POST', path: '/oauth/register', body: { redirect_uris: ['https://app.example/cb'] } });
  const { client_id } = JSON.parse((await mcp(register, lambdaContext('naaba-mcp'))).body) as { client_id: string };
  const event = proxyEvent({ method: 'GET', path: '/oauth/authorize' });
  const query = {
    client_id,
    redirect_uri: 'https://app.example/cb',
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  const withQuery = {
    ...event,
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
  };

  const result = await mcp(withQuery, lambdaContext('naaba-mcp'));

  expect(result.statusCode).toBe(200);
  expect(result.headers?.['set-cookie']).toMatch(
    /^naaba_oauth_csrf=[A-Za-z0-9_-]+; Path=\/v1\/oauth\/authorize; HttpOnly; SameSite=Strict; Max-Age=900; Secure$/,
  );
});
