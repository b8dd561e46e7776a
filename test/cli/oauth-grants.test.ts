import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { runCli, type ServeProcess, startServe } from '../support/cli.js';
import { TestOAuthProvider } from '../support/oauth.js';

/**
 * OAuth grants as an operator sees them: a client signs in to `naaba serve` with the SDK's flow,
 * `naaba list-keys` shows the grant with the client's name, and `naaba revoke-key` ends it.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'naaba-grants-'));
const data = ['--data', dataDir];
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(['--port', '0', ...data]);
});
afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a grant is listed with its client and revoked like a key', async () => {
  // Prepare: a key for the person, and an OAuth client signing in with it.
  const key = JSON.parse((await runCli(['issue-key', 'person', ...data, '--json'])).stdout) as { token: string; user_id: string };
  const provider = new TestOAuthProvider(key.token, 'Desk Assistant');
  const mcpUrl = new URL(`${server.url}/mcp`);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await expect(new Client({ name: 'c', version: '1' }).connect(transport)).rejects.toThrow(UnauthorizedError);
  await transport.finishAuth(provider.code);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  expect((await client.listTools()).tools).toHaveLength(4);
  await client.close();

  // Act: list, then revoke the grant by its id.
  const listed = await runCli(['list-keys', ...data, '--json']);
  const rows = JSON.parse(listed.stdout) as { key_id: string; user_id: string; name: string; oauth_client_name: string | null }[];
  const grant = rows.find((r) => r.oauth_client_name === 'Desk Assistant');
  const text = await runCli(['list-keys', ...data]);
  const revoked = await runCli(['revoke-key', grant?.key_id ?? '', ...data]);

  // Assert: the grant is the person's, named after the client; no token printed; revoked, the client is refused.
  expect(grant).toMatchObject({ user_id: key.user_id, name: 'Desk Assistant' });
  expect(text.stdout).toContain(`OAuth grant to "Desk Assistant"`);
  for (const secret of [provider.saved?.access_token, provider.saved?.refresh_token, key.token]) {
    expect(listed.stdout + text.stdout).not.toContain(secret);
  }
  expect(revoked.code).toBe(0);
  const refused = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${provider.saved?.access_token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('www-authenticate')).toBe(
    `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
  );
});
