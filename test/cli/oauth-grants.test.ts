import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RunningServe, runCli, startServe } from '../support/cli.js';
import { TestOAuthProvider } from '../support/oauth.js';

/**
 * OAuth grants as an operator sees them: a client signs in to `naaba serve` with the SDK's flow,
 * `naaba list-keys` shows the grant with the client's name, and `naaba revoke-key` ends it.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'naaba-grants-'));
const data = ['--data', dataDir];
let server: RunningServe;

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
    `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="memory"`,
  );
});

/** The SDK's sign-in with `provider`, from the 401 to its tokens. */
async function signIn(provider: TestOAuthProvider): Promise<void> {
  const mcpUrl = new URL(`${server.url}/mcp`);
  provider.saved = undefined;
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await expect(new Client({ name: 'c', version: '1' }).connect(transport)).rejects.toThrow(UnauthorizedError);
  await transport.finishAuth(provider.code);
}

test('signing in again with the same key replaces the grant; revoking the key ends its grants; list-keys shows both', async () => {
  // Prepare: a key, and one client that signs in with it twice.
  const key = JSON.parse((await runCli(['issue-key', 'second-person', ...data, '--json'])).stdout) as {
    token: string;
    key_id: string;
  };
  const provider = new TestOAuthProvider(key.token, 'Twice Signed');
  await signIn(provider);
  const firstAccess = provider.saved?.access_token;
  await signIn(provider);

  // Act: list; revoke the person's key; list again.
  const grantsOf = async () =>
    (
      JSON.parse((await runCli(['list-keys', ...data, '--json'])).stdout) as {
        key_id: string;
        revoked_at: string | null;
        oauth_client_name: string | null;
        granted_with_key_id: string | null;
      }[]
    ).filter((r) => r.oauth_client_name === 'Twice Signed');
  const before = await grantsOf();
  const text = (await runCli(['list-keys', ...data])).stdout;
  expect((await runCli(['revoke-key', key.key_id, ...data])).code).toBe(0);
  const after = await grantsOf();

  // Assert: two grants made with the key, the first replaced; after the key's revocation, none live.
  expect(before).toHaveLength(2);
  expect(before.every((g) => g.granted_with_key_id === key.key_id)).toBe(true);
  expect(before.filter((g) => g.revoked_at === null)).toHaveLength(1);
  expect(text).toContain(`made with key ${key.key_id}`);
  expect(text).toMatch(new RegExp(`${key.key_id} .* second-person {2}\\(1 live OAuth grant made with it\\)`));
  expect(after.filter((g) => g.revoked_at === null)).toEqual([]);
  const status = async (token: string | undefined) =>
    (await fetch(`${server.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' })).status;
  expect([await status(firstAccess), await status(provider.saved?.access_token)]).toEqual([401, 401]);
});
