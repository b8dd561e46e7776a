import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { call, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { TestOAuthProvider } from '../support/oauth.js';

/**
 * The MCP TypeScript SDK's own OAuth client against the local server over real HTTP: it discovers
 * from the 401, registers, is sent to the consent page (submitted with a key), exchanges the code,
 * calls the four tools, refreshes, and fails once the grant is revoked.
 */

let endpoint: TestEndpoint;
let key: IssuedKey;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  key = await endpoint.issueKey('owner');
});
afterAll(() => endpoint.close());

async function connectWith(provider: TestOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), { authProvider: provider }));
  return client;
}

test('discover, register, consent, exchange, the four tools, refresh, revoke', async () => {
  // Prepare: an OAuth-only client with no token.
  const provider = new TestOAuthProvider(key.token, 'Chat Connector');
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), { authProvider: provider });

  // Act 1: the first connect meets the 401, discovers, registers and goes to the consent page.
  await expect(new Client({ name: 'sdk-oauth', version: '1.0.0' }).connect(transport)).rejects.toThrow(UnauthorizedError);
  expect(provider.information?.client_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(provider.landing?.origin + (provider.landing?.pathname ?? '')).toBe(provider.redirectUrl);
  expect(provider.landing?.searchParams.get('state')).toBe('state-from-the-client');
  expect(provider.landing?.searchParams.get('iss')).toBe(endpoint.url);
  await transport.finishAuth(provider.code);
  expect(provider.saved?.access_token).toMatch(/^nba_/);
  expect(provider.saved?.refresh_token).toMatch(/^nbr_/);

  // Act 2: the four tools with the access token.
  const client = await connectWith(provider);
  const remembered = await call<{ id: string }>(client, 'remember', { content: 'The harbour opens at six.', kind: 'fact' });
  const recalled = await call<{ memories: { id: string; content: string }[] }>(client, 'recall', { query: 'harbour' });
  expect(recalled.structuredContent.memories.map((m) => m.id)).toContain(remembered.structuredContent.id);
  const state = await call<{ kinds: unknown[] }>(client, 'curation_state', {});
  expect(state.isError).toBeFalsy();
  // The grant is the key's user, and the client's name is the agent in provenance.
  const rows = await endpoint.sql.query<{ user_id: string; agent: string }>(
    sql`SELECT user_id::text AS user_id, agent FROM memories WHERE id = ${param('remembered.structuredContent.id', remembered.structuredContent.id)}::uuid`,
  );
  expect(rows).toEqual([{ user_id: key.userId, agent: 'Chat Connector' }]);
  const forgotten = await call<{ count: number }>(client, 'forget', { ids: [remembered.structuredContent.id] });
  expect(forgotten.structuredContent.count).toBe(1);
  await client.close();

  // Act 3: refresh rotates both tokens; the new access token works.
  const before = provider.saved;
  expect(await auth(provider, { serverUrl: endpoint.mcpUrl })).toBe('AUTHORIZED');
  expect(provider.saved?.access_token).not.toBe(before?.access_token);
  expect(provider.saved?.refresh_token).not.toBe(before?.refresh_token);
  const refreshed = await connectWith(provider);
  expect((await call(refreshed, 'curation_state', {})).isError).toBeFalsy();
  await refreshed.close();

  // Act 4: the grant is listed as a key of the same user, named after the client; revoked, the tools fail.
  const grants = (await (await endpoint.container.keys()).list()).filter((k) => k.clientId === provider.information?.client_id);
  expect(grants).toHaveLength(1);
  expect(grants[0]).toMatchObject({ userId: key.userId, region: key.region, name: 'Chat Connector', revokedAt: null });
  await (await endpoint.container.keys()).revoke(grants[0]?.keyId ?? '');
  const response = await fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${provider.saved?.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(401);
  // And the refresh token of a revoked grant is refused.
  await expect(auth(provider, { serverUrl: endpoint.mcpUrl })).rejects.toThrow();
});
