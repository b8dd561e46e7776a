import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * Discovery as a client meets it: the 401's challenge, the protected resource metadata
 * (RFC 9728) and the authorization server metadata (RFC 8414), locally and as API Gateway's
 * event shape gives the base URL (domain and stage from the request context).
 */

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint();
});
afterAll(() => endpoint.close());

const getJson = async (path: string) => {
  const response = await fetch(`${endpoint.url}${path}`);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

test('the 401 names the metadata, which names /mcp as the resource and the endpoint as its authorization server', async () => {
  const refused = await fetch(endpoint.mcpUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  const challenge = refused.headers.get('www-authenticate') ?? '';
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';

  const resource = await fetch(metadataUrl);
  const body = (await resource.json()) as Record<string, unknown>;

  expect(refused.status).toBe(401);
  expect(body).toEqual({
    resource: endpoint.mcpUrl,
    authorization_servers: [endpoint.url],
    scopes_supported: ['memory'],
    bearer_methods_supported: ['header'],
    resource_name: 'naaba memory',
  });
  expect(resource.headers.get('access-control-allow-origin')).toBe('*');
  expect((await getJson('/.well-known/oauth-protected-resource')).body).toEqual(body);
});

test('the authorization server metadata: S256 only, public clients, registration, iss in the response', async () => {
  const { status, body } = await getJson('/.well-known/oauth-authorization-server');

  expect(status).toBe(200);
  expect(body).toMatchObject({
    issuer: endpoint.url,
    authorization_endpoint: `${endpoint.url}/oauth/authorize`,
    token_endpoint: `${endpoint.url}/oauth/token`,
    registration_endpoint: `${endpoint.url}/oauth/register`,
    revocation_endpoint: `${endpoint.url}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
  });
});

test.each([
  ['POST', '/.well-known/oauth-authorization-server', 405],
  ['GET', '/oauth/token', 405],
  ['GET', '/oauth/register', 405],
])('%s %s answers %i with an OAuth error body', async (method, path, status) => {
  const response = await fetch(`${endpoint.url}${path}`, { method });
  expect(response.status).toBe(status);
  expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
});

test('a foreign Host is refused before any OAuth work (DNS rebinding)', async () => {
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const url = new URL(`${endpoint.url}/.well-known/oauth-authorization-server`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'evil.example' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  expect(status).toBe(403);
});
