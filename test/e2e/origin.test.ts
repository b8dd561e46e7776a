import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { request } from 'node:http';
import { LOOPBACK_HOSTS, originProblem } from '../../lambda/http/origin.js';
import { loadConfig } from '../../lambda/config/env.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

describe('the Origin and Host rule', () => {
  const local = { allowedHosts: [...LOOPBACK_HOSTS], allowedOrigins: ['https://app.example.com'] };
  test.each<[string, string | null, string | null, boolean]>([
    ['a loopback host with a port', '127.0.0.1:8000', null, true],
    ['localhost', 'localhost:8000', null, true],
    ['an IPv6 loopback', '[::1]:8000', null, true],
    ['a foreign host (DNS rebinding)', 'evil.example.com:8000', null, false],
    ['a malformed host', '[', null, false],
    ['user info before a loopback host', 'evil.example@127.0.0.1:8000', null, false],
    ['a path after a loopback host', '127.0.0.1:8000/evil', null, false],
    ['a fragment after a loopback host', '127.0.0.1:8000#', null, false],
    ['a port out of range', '127.0.0.1:65536', null, false],
    ['no host', null, null, false],
    ['the endpoint’s own origin', '127.0.0.1:8000', 'http://127.0.0.1:8000', true],
    ['a trusted origin', '127.0.0.1:8000', 'https://app.example.com', true],
    ['a foreign origin', '127.0.0.1:8000', 'http://evil.example.com', false],
    ['the null origin', '127.0.0.1:8000', 'null', false],
  ])('locally: %s', (_label, host, origin, ok) => {
    expect(originProblem(host, origin, local) === undefined).toBe(ok);
  });

  test('behind API Gateway any Host passes (the gateway routes only its own names), a foreign Origin does not', () => {
    const aws = { allowedHosts: 'any' as const, allowedOrigins: [] };
    expect(originProblem('abc.execute-api.eu-central-1.amazonaws.com', null, aws)).toBeUndefined();
    expect(originProblem('abc.execute-api.eu-central-1.amazonaws.com', 'https://evil.example.com', aws)).toMatch(/Origin/);
  });

  test('settings: loopback by default plus the listen host; * for any; an origin must be an origin', () => {
    expect(loadConfig({}).origins).toEqual({ allowedHosts: ['localhost', '127.0.0.1', '::1'], allowedOrigins: [] });
    expect(loadConfig({ NAABA_HOST: '192.168.1.20' }).origins.allowedHosts).toContain('192.168.1.20');
    expect(loadConfig({ NAABA_ALLOWED_HOSTS: '*' }).origins.allowedHosts).toBe('any');
    expect(() => loadConfig({ NAABA_ALLOWED_ORIGINS: 'https://app.example.com/path' })).toThrow(/not an origin/);
  });
});

describe('through the local endpoint', () => {
  let endpoint: TestEndpoint;
  let token: string;
  beforeAll(async () => {
    endpoint = await startTestEndpoint();
    token = (await endpoint.issueKey('agent')).token;
  });
  afterAll(async () => endpoint.close());

  /** A raw request, so that Host can be anything a browser under DNS rebinding would send. */
  function post(path: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string }> {
    const url = new URL(endpoint.url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'remember', arguments: { content: 'planted', kind: 'fact' } },
    });
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      if (method === 'POST') req.end(body);
      else req.end();
    });
  }
  const memories = async () => (await endpoint.sql.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM memories`))[0]?.n;

  test.each<[string, Record<string, string>, number]>([
    ['a foreign Host', { host: 'evil.example.com:8000', origin: 'http://evil.example.com:8000' }, 403],
    ['a foreign Origin', { origin: 'http://evil.example.com' }, 403],
    ['a malformed Host', { host: '[' }, 400],
    ['a Host with user info', { host: 'evil.example@127.0.0.1:8000' }, 400],
    ['a Host with a path and a fragment', { host: '127.0.0.1:8000/evil#' }, 400],
  ])('%s with a valid key is refused and writes nothing', async (_label, headers, status) => {
    const before = await memories();
    const answer = await post('/mcp', headers);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body).message).toMatch(/Host|Origin/);
    expect(answer.body).not.toContain('evil');
    expect(await memories()).toBe(before);
  });

  test('the endpoint’s own origin is accepted; a malformed Host is a 400 everywhere, /healthz included', async () => {
    const own = new URL(endpoint.url).origin;
    expect((await post('/mcp', { origin: own })).status).toBe(200);
    expect((await post('/healthz', { host: '[' }, 'GET')).status).toBe(400);
    expect((await post('/healthz', {}, 'GET')).status).toBe(200);
  });
});
