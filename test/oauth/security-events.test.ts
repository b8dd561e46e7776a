import { createHash } from 'node:crypto';
import { setEnvironment } from '../handlers/process-env.js';
import { capturedOutput } from '../support/output.js';

/**
 * Security events (decision 0065) over the real local server: each leaves a WARN line and the two
 * counts the alarm reads (`security_event`, `security_<name>`), and nothing any of them writes
 * holds a token, a code, a key or a SHA-256 of one.
 */

// As inside Lambda (metrics on), logging at INFO: set before the handlers' modules load.
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-local',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  NAABA_LOG_LEVEL: 'INFO',
});
const { startTestEndpoint } = await import('../support/endpoint.js');
const { ManualOAuthFlow, openConsent, pkce, submitConsent } = await import('../support/oauth.js');
const { ManualClock } = await import('../support/clock.js');

const REDIRECT = 'http://127.0.0.1:8977/cb';
const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
type Endpoint = Awaited<ReturnType<typeof startTestEndpoint>>;
let endpoint: Endpoint;
let flow: InstanceType<typeof ManualOAuthFlow>;
let key: Awaited<ReturnType<Endpoint['issueKey']>>;
let clientId: string;
/** Every secret the flows below handled: none may appear in any output. */
const secrets: string[] = [];

beforeAll(async () => {
  endpoint = await startTestEndpoint({ clock, env: { NAABA_OAUTH_RATE_LIMITS: 'register=3/1h' } });
  flow = new ManualOAuthFlow(endpoint.url);
  key = await endpoint.issueKey('owner');
  secrets.push(key.token);
  clientId = await flow.client(REDIRECT);
});
afterAll(async () => {
  await endpoint.close();
  restoreEnvironment();
});

async function tokens(): Promise<{ access: string; refresh: string; code: string }> {
  const { verifier, challenge } = pkce();
  const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge });
  const answer = await submitConsent(url, await openConsent(url), { key: key.token, decision: 'allow' });
  const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const exchange = () =>
    flow.token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
  const first = await exchange();
  const pair = { access: String(first.body.access_token), refresh: String(first.body.refresh_token), code };
  secrets.push(pair.access, pair.refresh, code, verifier);
  return { ...pair, code };
}

/** The WARN lines and metric names written while `act` ran; a health check flushes the metrics of work done outside a handler. */
async function observed(
  act: () => Promise<unknown>,
): Promise<{ warnings: Record<string, unknown>[]; metrics: string[]; output: string }> {
  const { output } = await capturedOutput(async () => {
    await act();
    await fetch(`${endpoint.url}/healthz`);
  });
  const lines = output.split('\n').filter((l) => l.startsWith('{'));
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const warnings = parsed.filter((l) => l.level === 'WARN' && l.message === 'security event');
  const metrics = parsed.flatMap((l) =>
    ((l._aws as { CloudWatchMetrics?: { Metrics: { Name: string }[] }[] } | undefined)?.CloudWatchMetrics ?? []).flatMap((m) =>
      m.Metrics.map((x) => x.Name),
    ),
  );
  return { warnings, metrics, output };
}

const refresh = (token: string) => flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token });

test.each<[string, () => Promise<unknown>, string]>([
  [
    'a code presented twice',
    async () => {
      const { code } = await tokens();
      await flow.token({
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: REDIRECT,
        code_verifier: 'x'.repeat(43),
      });
    },
    'code_replay',
  ],
  [
    'a replaced refresh token presented after its replacement was used',
    async () => {
      const first = await tokens();
      const second = await refresh(first.refresh);
      secrets.push(String(second.body.access_token), String(second.body.refresh_token));
      const third = await refresh(String(second.body.refresh_token));
      secrets.push(String(third.body.access_token), String(third.body.refresh_token));
      await refresh(first.refresh);
    },
    'refresh_reuse',
  ],
  [
    'consent with an unknown key',
    async () => {
      const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
      await submitConsent(url, await openConsent(url), { key: `nb_${'U'.repeat(43)}`, decision: 'allow' });
    },
    'consent_refused',
  ],
  [
    'a consent POST without its CSRF cookie',
    async () => {
      const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
      await submitConsent(url, await openConsent(url), { key: key.token, decision: 'allow' }, { cookie: undefined });
    },
    'consent_refused',
  ],
  [
    'a client revoking its grant',
    async () => flow.revoke({ client_id: clientId, token: (await tokens()).refresh }),
    'revocation',
  ],
  [
    'registrations past the per-address limit',
    async () => Promise.all([1, 2, 3, 4].map(() => flow.client(REDIRECT).catch(() => ''))),
    'rate_limited',
  ],
  [
    'an unknown bearer token',
    () => fetch(endpoint.mcpUrl, { method: 'POST', headers: { authorization: `Bearer nb_${'Z'.repeat(43)}` }, body: '{}' }),
    'auth_failed',
  ],
])('%s: a WARN line and both counts', async (_label, act, name) => {
  const { warnings, metrics } = await observed(act);
  expect(warnings.map((w) => w.event)).toContain(name);
  const line = warnings.find((w) => w.event === name);
  expect(typeof line?.reason).toBe('string');
  expect(metrics).toEqual(expect.arrayContaining(['security_event', `security_${name}`]));
});

test('a flood of failed authentications is counted every time but logged at most once a second', async () => {
  // Past the sampling window of the lines written above; the flood then takes no time on the
  // endpoint's clock, however long the machine takes to send it.
  clock.advance(1.1);
  const { warnings, metrics } = await observed(async () => {
    for (let i = 0; i < 10; i += 1) {
      await fetch(endpoint.mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer nb_${String(i).repeat(43)}` },
        body: '{}',
      });
    }
  });
  // One authorizer invocation each, each flushing its own metrics.
  expect(metrics.filter((m) => m === 'security_auth_failed')).toHaveLength(10);
  expect(warnings.filter((w) => w.event === 'auth_failed')).toHaveLength(1);
});

test('no output of any event holds a secret or its SHA-256', async () => {
  const { output } = await observed(async () => {
    const first = await tokens();
    await refresh(first.refresh);
    await flow.token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: first.code,
      redirect_uri: REDIRECT,
      code_verifier: 'y'.repeat(43),
    });
    await flow.revoke({ client_id: clientId, token: first.access });
  });
  expect(output).toContain('"message":"security event"');
  for (const secret of secrets) {
    const hash = createHash('sha256').update(secret).digest('hex');
    expect([secret, hash].filter((s) => output.includes(s))).toEqual([]);
  }
});

test('one stale client retrying with the same revoked key counts as one source; distinct made-up tokens each count (issue 48)', async () => {
  // A new window for the sources seen above.
  clock.advance(301);
  const stale = `nb_${'S'.repeat(43)}`;
  const send = (token: string) =>
    fetch(endpoint.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });

  const retried = await observed(async () => {
    for (let i = 0; i < 12; i += 1) {
      clock.advance(15);
      await send(stale);
    }
  });
  clock.advance(1.1);
  const flood = await observed(async () => {
    for (let i = 0; i < 6; i += 1) await send(`nb_${'F'.repeat(42)}${i}`);
  });

  const counted = (metrics: string[], name: string) => metrics.filter((m) => m === name).length;
  expect(counted(retried.metrics, 'security_auth_failed')).toBe(12);
  expect(counted(retried.metrics, 'security_source')).toBe(1);
  expect(counted(retried.metrics, 'authorization_unauthorized_source')).toBe(1);
  expect(counted(flood.metrics, 'security_source')).toBe(6);
  expect(counted(flood.metrics, 'authorization_unauthorized_source')).toBe(6);
});
