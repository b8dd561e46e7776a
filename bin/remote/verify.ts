import { discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import { randomUUID } from 'node:crypto';
import { MemoryProbe, type Recalled } from './probe.js';

/**
 * verify-remote: checks a deployed (or local) naaba endpoint end to end with a real MCP client,
 * on throwaway content it deletes again. Each check yields one result; a failed check never
 * stops the cleanup.
 */

export const EXPECTED_TOOLS = ['curation_state', 'forget', 'recall', 'remember'] as const;

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly ms: number;
}

export interface VerifyOptions {
  /** The MCP endpoint (`…/mcp`), or the stage URL it hangs off. */
  readonly url: string;
  readonly token: string;
  /** A key of another user: when given, isolation is checked too. */
  readonly token2?: string | undefined;
  /** Called with each result as soon as it is known. */
  readonly onResult?: (result: CheckResult) => void;
}

export interface VerifyReport {
  readonly mcpUrl: string;
  readonly results: CheckResult[];
  readonly ok: boolean;
}

/** A check that did not hold; its message is the result's detail. */
class CheckFailed extends Error {
  override name = 'CheckFailed';
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** `…/mcp` and `…/healthz` from what the operator typed. */
export function endpointUrls(url: string): { mcpUrl: string; healthzUrl: string } {
  const base = url.replace(/\/+$/, '').replace(/\/mcp$/, '');
  return { mcpUrl: `${base}/mcp`, healthzUrl: `${base}/healthz` };
}

/** An unexpected error in one line, with its cause (`fetch failed` alone does not say ECONNREFUSED). */
function describeError(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause ? ` (${e.cause.code ?? e.cause.message})` : '';
  return `${e.name}: ${e.message}${cause}`;
}

const has = (memories: Recalled[], id: string, content: string) => memories.some((m) => m.id === id || m.content === content);

export async function verifyRemote(options: VerifyOptions): Promise<VerifyReport> {
  const { mcpUrl, healthzUrl } = endpointUrls(options.url);
  const results: CheckResult[] = [];
  const record = (result: CheckResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const skip = (name: string, why: string) => record({ name, status: 'skip', detail: why, ms: 0 });
  /** Runs one check; resolves to its value, or undefined when it failed. */
  async function check<T>(name: string, run: () => Promise<[T, string]>): Promise<T | undefined> {
    const started = performance.now();
    try {
      const [value, detail] = await run();
      record({ name, status: 'pass', detail, ms: performance.now() - started });
      return value;
    } catch (error) {
      const detail = error instanceof CheckFailed ? error.message : describeError(error);
      record({ name, status: 'fail', detail, ms: performance.now() - started });
      return undefined;
    }
  }

  await check('GET /healthz answers 200', async () => {
    const response = await fetch(healthzUrl);
    const body = (await response.json().catch(() => ({}))) as { status?: string; region?: string };
    expect(response.status === 200 && body.status === 'ok', `got ${response.status} ${JSON.stringify(body)}`);
    return [true, `region ${body.region ?? '?'}`];
  });

  await check('POST /mcp without a token is refused with 401 and WWW-Authenticate: Bearer', async () => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(response.status === 401 && /^Bearer/i.test(challenge), `got ${response.status}, WWW-Authenticate "${challenge}"`);
    return [true, '401'];
  });

  await check('OAuth discovery as the MCP SDK does it: resource metadata, then the authorization server', async () => {
    const info = await discoverOAuthServerInfo(mcpUrl);
    const resource = info.resourceMetadata?.resource;
    expect(resource === mcpUrl, `the protected resource metadata names ${resource ?? 'nothing'}, not ${mcpUrl}`);
    expect(
      info.authorizationServerMetadata?.registration_endpoint !== undefined,
      `no authorization server metadata found for ${info.authorizationServerUrl}; behind a stage path it needs a custom domain (naaba:regions.<region>.domain, docs/oauth.md)`,
    );
    return [true, `issuer ${info.authorizationServerUrl}`];
  });

  const probe = await check('connect with the token and list the tools', async () => {
    const connected = await MemoryProbe.connect(mcpUrl, options.token);
    const tools = await connected.tools();
    expect(
      JSON.stringify(tools.names) === JSON.stringify(EXPECTED_TOOLS),
      `expected exactly ${EXPECTED_TOOLS.join(', ')}; got ${tools.names.join(', ')}`,
    );
    return [{ connected, kinds: tools.kinds }, tools.names.join(', ')];
  });
  if (!probe) {
    for (const name of ['remember', 'recall', 'isolation', 'forget']) skip(name, 'needs a connection');
    return { mcpUrl, results, ok: false };
  }

  const content = `naaba verify-remote probe ${randomUUID()}: throwaway content, deleted by the same run`;
  const kind = probe.kinds.includes('session') ? 'session' : (probe.kinds[0] ?? 'fact');
  let probeId: string | undefined;
  try {
    probeId = await check(`remember a throwaway ${kind} memory`, async () => {
      const remembered = await probe.connected.remember(content, kind);
      if (remembered.outcome !== 'merged') probeId = remembered.id;
      expect(
        remembered.outcome === 'stored',
        `outcome ${remembered.outcome} (into ${remembered.id}); nothing of yours is deleted`,
      );
      const evicted =
        remembered.evicted > 0 ? `; it evicted ${remembered.evicted} memory at the ceiling: use a dedicated key` : '';
      return [remembered.id, `stored ${remembered.id}${evicted}`];
    });
    const id = probeId;
    if (!id) {
      for (const name of ['recall', 'isolation', 'forget']) skip(name, 'nothing was stored');
      return { mcpUrl, results, ok: false };
    }
    await check('recall finds it', async () => {
      const found = (await probe.connected.recall(content)).find((m) => m.id === id);
      expect(found?.content === content, 'the probe is not among the nearest memories');
      return [true, `distance ${found.distance.toFixed(3)}`];
    });
    if (options.token2) await checkIsolation(check, mcpUrl, options.token2, probe.connected, id, content);
    else skip("a second user's key sees none of it", 'no --token2 given');
    await check('forget deletes it, and recall no longer finds it', async () => {
      const forgotten = await probe.connected.forget([id]);
      expect(forgotten.count === 1 && forgotten.deleted[0] === id, `forget answered ${JSON.stringify(forgotten)}`);
      probeId = undefined;
      expect(!has(await probe.connected.recall(content), id, content), 'recall still returns it');
      return [true, 'deleted 1'];
    });
  } finally {
    if (probeId) await probe.connected.forget([probeId]).catch(() => undefined);
    await probe.connected.close();
  }
  return { mcpUrl, results, ok: results.every((r) => r.status !== 'fail') };
}

type Check = <T>(name: string, run: () => Promise<[T, string]>) => Promise<T | undefined>;

/** The second user can neither see nor delete the first user's memory. */
async function checkIsolation(check: Check, mcpUrl: string, token2: string, first: MemoryProbe, id: string, content: string) {
  const other = await check('connect with the second token', async () => [
    await MemoryProbe.connect(mcpUrl, token2),
    'connected',
  ]);
  if (!other) return;
  try {
    await check("the second user's recall does not see it", async () => {
      const seen = await other.recall(content);
      expect(!has(seen, id, content), 'the second token sees the first token’s memory: are both keys of the same user?');
      return [true, `${seen.length} memories of its own`];
    });
    await check("the second user's forget cannot delete it", async () => {
      const forgotten = await other.forget([id]);
      const still = (await first.recall(content)).some((m) => m.id === id);
      expect(forgotten.count === 0 && still, `forget answered ${JSON.stringify(forgotten)}; still there: ${still}`);
      return [true, 'deleted 0; still there'];
    });
  } finally {
    await other.close();
  }
}
