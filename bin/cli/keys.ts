import type { IssuedKey } from '../../lambda/auth/keys.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { runningServer, type ServerNote } from '../../lambda/dev/data-dir.js';
import type { ApiKey } from '../../lambda/ports/key-store.js';
import { UsageError } from './args.js';
import { endpointLines, mcpEndpoint, requireEndpointOfRegion } from './endpoint.js';
import { fetchJson } from './failures.js';
import { withContainer } from './open.js';
import { naabaCommand } from './invoked.js';
import type { Terminal } from './terminal.js';

/** Key commands go through the running local server when there is one, else open the database. */
export async function viaServer<T>(
  note: ServerNote,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs?: number,
): Promise<T> {
  const { response, body: answer } = await fetchJson(`${note.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-naaba-admin': note.adminSecret },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
  });
  if (!response.ok)
    throw new UsageError(typeof answer.message === 'string' ? answer.message : `server answered ${response.status}`);
  return answer as T;
}

function localServer(config: RuntimeConfig): ServerNote | undefined {
  return config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
}

/**
 * `naaba issue-key`: a new key, and what to give the MCP client. The URL is the region's real
 * endpoint (NAABA_ENDPOINT_URL, or the local server's); against a cluster without that setting it
 * says where to read it, never a local address.
 */
export async function issueKey(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  name: string,
  userId: string | undefined,
  json: boolean | 'quiet',
): Promise<IssuedKey> {
  const note = localServer(config);
  const endpoint = mcpEndpoint(t.env, config, flags, note ? `${note.url}/mcp` : undefined);
  await requireEndpointOfRegion(t.env, endpoint, config.region, (line) => t.warn(line));
  const key = note
    ? await viaServer<IssuedKey>(note, 'POST', '/admin/keys', { name, region: config.region, userId })
    : await withContainer(t, config, async (c) => (await c.keys()).issue(name, config.region, userId));
  // `naaba connect --issue` prints the client's configuration instead.
  if (json === 'quiet') return key;
  if (json) {
    const url = endpoint.kind === 'known' ? endpoint.url : null;
    const row = { token: key.token, key_id: key.keyId, user_id: key.userId, region: key.region, name: key.name, url };
    t.print(JSON.stringify(row));
    return key;
  }
  t.print(`Key "${key.name}" issued in region ${key.region}.
  key id:  ${key.keyId}
  user id: ${key.userId}
  token:   ${key.token}

The token is shown once; only its SHA-256 is stored. Give your MCP client:
${endpointLines(endpoint).join('\n')}
  header:  Authorization: Bearer ${key.token}
or let naaba write a client's configuration: NAABA_KEY=${key.token} ${naabaCommand(t)} connect claude-code|cursor|vscode|json --write`);
  return key;
}

/**
 * Revokes a key without a word: `revoke-key`, and `connect` taking back a key whose client it could
 * not connect, which waits for the running server at most `timeoutMs` (a `TimeoutError` then).
 */
export async function withdrawKey(t: Terminal, config: RuntimeConfig, keyId: string, timeoutMs?: number): Promise<void> {
  const note = localServer(config);
  if (note) await viaServer(note, 'DELETE', `/admin/keys/${encodeURIComponent(keyId)}`, undefined, timeoutMs);
  else await withContainer(t, config, async (c) => (await c.keys()).revoke(keyId));
}

export async function revokeKey(t: Terminal, config: RuntimeConfig, keyId: string): Promise<void> {
  await withdrawKey(t, config, keyId);
  t.print(`key ${keyId} revoked`);
}

export async function listKeys(t: Terminal, config: RuntimeConfig, json: boolean): Promise<void> {
  const note = localServer(config);
  const keys = note
    ? await viaServer<ApiKey[]>(note, 'GET', '/admin/keys')
    : await withContainer(t, config, async (c) => (await c.keys()).list());
  if (json) {
    const rows = keys.map((k) => ({
      key_id: k.keyId,
      name: k.name,
      user_id: k.userId,
      region: k.region,
      created_at: new Date(k.createdAt).toISOString(),
      revoked_at: k.revokedAt ? new Date(k.revokedAt).toISOString() : null,
      oauth_client_id: k.clientId,
      oauth_client_name: k.clientName ?? null,
      granted_with_key_id: k.grantedBy ?? null,
    }));
    t.print(JSON.stringify(rows));
    return;
  }
  if (keys.length === 0) return t.print(`no keys yet; issue one with: ${naabaCommand(t)} issue-key NAME`);
  for (const k of keys) t.print(keyLine(k, keys));
}

/** One line per key; a grant names its client and the key it was made with, a key counts its live grants. */
function keyLine(k: ApiKey, all: readonly ApiKey[]): string {
  const state = k.revokedAt ? `revoked ${new Date(k.revokedAt).toISOString()}` : 'active';
  const madeWith = k.grantedBy ? `, made with key ${k.grantedBy}` : '';
  const grants = all.filter((g) => g.grantedBy === k.keyId && !g.revokedAt).length;
  const what = k.clientId
    ? `${k.name}  (OAuth grant to "${k.clientName ?? k.name}", client ${k.clientId}${madeWith})`
    : `${k.name}${grants > 0 ? `  (${grants} live OAuth grant${grants === 1 ? '' : 's'} made with it)` : ''}`;
  return `${k.keyId}  ${k.region.padEnd(14)} ${state.padEnd(32)} user ${k.userId}  ${what}`;
}
