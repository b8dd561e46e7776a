import type { APIGatewayProxyResult } from 'aws-lambda';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { handler } from '../../lambda/handlers/endpoint.js';
import { type AuthorizerContext, lambdaContext, mcpCall, proxyEvent } from './events.js';
import { contextOf, type HandlerRuntime, installRuntime } from './runtime.js';

let runtime: HandlerRuntime;
let key: IssuedKey;
let principal: AuthorizerContext;
beforeAll(async () => {
  runtime = await installRuntime();
  key = await runtime.issue('handler-tests');
  principal = contextOf(key);
});
afterAll(async () => runtime.close());

const invoke = (event: Parameters<typeof handler>[0]): Promise<APIGatewayProxyResult> =>
  handler(event, lambdaContext('naaba-mcp'));

interface JsonRpcAnswer {
  readonly result: { readonly isError?: boolean; readonly structuredContent?: unknown; readonly tools?: { name: string }[] };
}
const jsonOf = (result: APIGatewayProxyResult) => JSON.parse(result.body) as JsonRpcAnswer;

test('two calls on one warm handler both succeed: remember, then recall finds it', async () => {
  const remembered = await invoke(
    mcpCall('tools/call', { name: 'remember', arguments: { content: 'The build uses esbuild.', kind: 'fact' } }, principal),
  );
  const recalled = await invoke(
    mcpCall('tools/call', { name: 'recall', arguments: { query: 'which bundler does the build use' } }, principal),
  );

  expect([remembered.statusCode, recalled.statusCode]).toEqual([200, 200]);
  expect(jsonOf(remembered).result.isError).toBeFalsy();
  const memories = (jsonOf(recalled).result.structuredContent as { memories: { content: string }[] }).memories;
  expect(memories.map((m) => m.content)).toEqual(['The build uses esbuild.']);
});

test('initialize then tools/list on the same warm handler', async () => {
  const init = await invoke(
    mcpCall(
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      principal,
    ),
  );
  const listed = await invoke(mcpCall('tools/list', {}, principal));

  expect([init.statusCode, listed.statusCode]).toEqual([200, 200]);
  const tools = (jsonOf(listed).result.tools ?? []).map((t) => t.name).sort();
  expect(tools).toEqual(['curation_state', 'forget', 'recall', 'remember']);
});

test('GET /healthz answers 200 without touching the database', async () => {
  const before = runtime.sql.roundTrips;

  const result = await invoke(proxyEvent({ method: 'GET', path: '/healthz' }));

  expect(result.statusCode).toBe(200);
  expect(JSON.parse(result.body)).toEqual({ status: 'ok', region: 'eu-central-1' });
  expect(runtime.sql.roundTrips).toBe(before);
});

test('the page at the stage URL without its slash is sent to the slash, so its relative links keep the stage', async () => {
  const event = proxyEvent({ method: 'GET', path: '/' });
  const bare = await invoke({ ...event, requestContext: { ...event.requestContext, path: '/v1' } });
  expect([bare.statusCode, bare.headers?.location]).toEqual([308, '/v1/']);

  const slashed = await invoke({ ...event, requestContext: { ...event.requestContext, path: '/v1/' } });
  expect(slashed.statusCode).toBe(200);
  expect(slashed.body).toContain('src="app.js"');
});

test.each(['GET', 'DELETE'])('%s /mcp reaches the function and gets 405 with Allow: POST', async (method) => {
  const result = await invoke(proxyEvent({ method, path: '/mcp' }));

  expect(result.statusCode).toBe(405);
  expect(result.headers?.allow).toBe('POST');
});

test('POST /mcp without an authorizer context is refused with 401, never run anonymously', async () => {
  const before = runtime.sql.roundTrips;

  const result = await invoke(mcpCall('tools/list', {}));

  expect(result.statusCode).toBe(401);
  expect(result.headers?.['www-authenticate']).toBe('Bearer');
  expect(runtime.sql.roundTrips).toBe(before);
});
