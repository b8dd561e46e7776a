import { SCOPE } from '../auth/oauth.js';
import { registrationJson } from '../auth/oauth-clients.js';
import { OAuthError } from '../auth/oauth-errors.js';
import { isLoopback } from '../auth/loopback-registrations.js';
import type { OAuthService } from '../auth/oauth.js';
import { clientSubject, type LimitedRoute, registrationSubject } from '../auth/oauth-limits.js';
import { securityEvent } from '../auth/security-events.js';
import { RESOURCE_METADATA_PATH } from '../http/api-gateway.js';
import { originProblem } from '../http/origin.js';
import { isUnreachable, storeUnavailable } from '../http/unavailable.js';
import { loggable, type RequestLog } from '../observability.js';
import { answerConsent, type ConsentDeps, readForm, showConsent } from './consent.js';

/**
 * The OAuth routes of the endpoint (MCP authorization spec; docs/decisions/0054): protected
 * resource metadata (RFC 9728), authorization server metadata (RFC 8414), registration
 * (RFC 7591), the consent page, the token endpoint and revocation (RFC 7009). Open routes: what
 * they issue is bound to a key the person types on the consent page. Registration, consent,
 * token and revocation are limited per client address (decision 0064); discovery, registration,
 * token and revocation answer browsers across origins (CORS), the consent page never does.
 */

/** What the routes need: the consent page's needs, and a log. */
export interface OAuthDeps extends ConsentDeps {
  readonly log: RequestLog;
}

const METADATA_PATHS = new Set([RESOURCE_METADATA_PATH, '/.well-known/oauth-protected-resource']);
const SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
/** The routes this module answers, as the stack declares them. */
export const OAUTH_PATHS = [
  ...METADATA_PATHS,
  SERVER_METADATA_PATH,
  '/oauth/register',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/revoke',
];
const MAX_BODY = 16 * 1024;

const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** What a browser-based client may read across origins: everything but the consent page, no credentials. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'retry-after, www-authenticate',
} as const;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...headers } });

/** Public metadata: cacheable for a few minutes. */
const metadata = (body: unknown) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
  });

export function resourceMetadata(base: string) {
  return {
    resource: `${base}/mcp`,
    authorization_servers: [base],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'naaba memory',
  };
}

export function serverMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [SCOPE],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
  };
}

async function register(request: Request, deps: OAuthDeps): Promise<Response> {
  const text = await request.text();
  if (text.length > MAX_BODY) throw new OAuthError('invalid_client_metadata', 'the registration body is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_client_metadata', 'the registration body is not JSON');
  }
  const client = await (await deps.oauth()).register(body, deps.address);
  deps.log.info('oauth client registered', { clientId: client.clientId });
  return json(201, registrationJson(client));
}

async function token(request: Request, deps: OAuthDeps): Promise<Response> {
  const form = await readForm(request);
  if (!form) throw new OAuthError('invalid_request', 'the token request is too large');
  const answer = await (await deps.oauth()).token(form);
  deps.log.info('oauth tokens issued', { grantType: form.get('grant_type') ?? '' });
  return json(200, answer, { pragma: 'no-cache' });
}

async function revoke(request: Request, deps: OAuthDeps): Promise<Response> {
  const form = await readForm(request);
  if (!form) throw new OAuthError('invalid_request', 'the revocation request is too large');
  const keyId = await (await deps.oauth()).revoke(form);
  if (keyId) {
    const clientId = form.get('client_id') ?? undefined;
    securityEvent('revocation', { reason: 'client_revoked_its_grant', route: 'revoke', address: deps.address, clientId, keyId });
  }
  return new Response(null, { status: 200, headers: NO_STORE });
}

type Handler = (request: Request, deps: OAuthDeps) => Promise<Response>;

/** Each route: its handlers by method, the limit that counts its requests, and whether other origins may read it. */
interface Route {
  readonly methods: Partial<Record<string, Handler>>;
  readonly limit?: LimitedRoute;
  readonly cors: boolean;
}

const answerMetadata =
  (build: (base: string) => unknown): Handler =>
  async (_, deps) =>
    metadata(build(deps.base));

const ROUTES: Readonly<Record<string, Route>> = {
  [RESOURCE_METADATA_PATH]: { methods: { GET: answerMetadata(resourceMetadata) }, cors: true },
  '/.well-known/oauth-protected-resource': { methods: { GET: answerMetadata(resourceMetadata) }, cors: true },
  [SERVER_METADATA_PATH]: { methods: { GET: answerMetadata(serverMetadata) }, cors: true },
  '/oauth/authorize': { methods: { GET: showConsent, POST: answerConsent }, limit: 'authorize', cors: false },
  '/oauth/register': { methods: { POST: register }, limit: 'register', cors: true },
  '/oauth/token': { methods: { POST: token }, limit: 'token', cors: true },
  '/oauth/revoke': { methods: { POST: revoke }, limit: 'revoke', cors: true },
};

/** The methods an OAuth path answers (OPTIONS where other origins may call it), or undefined for another path. */
export function oauthMethods(path: string): readonly string[] | undefined {
  const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
  if (!route) return undefined;
  return [...Object.keys(route.methods), ...(route.methods.GET ? ['HEAD'] : []), ...(route.cors ? ['OPTIONS'] : [])];
}

/** A browser's preflight (CORS): which method and headers a cross-origin request to this route may use. */
function preflight(route: Route): Response {
  const methods = [...Object.keys(route.methods), 'OPTIONS'].join(', ');
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
      'access-control-max-age': '600',
      allow: methods,
    },
  });
}

/** An OAuth error answer; a refusal that stands for a security event records it. */
function oauthError(error: OAuthError, route: string, deps: OAuthDeps): Response {
  if (error.event) {
    const { name, reason, keyId, clientId } = error.event;
    securityEvent(name, { reason, route, address: deps.address, keyId, clientId });
  }
  return json(error.status, { error: error.code, error_description: error.message });
}

/** 429 from a per-address limit: Retry-After is when this address is served again. */
function limited(route: LimitedRoute, seconds: number, deps: OAuthDeps): Response {
  securityEvent('rate_limited', { reason: 'oauth_address_limit', route, address: deps.address, retryAfterSeconds: seconds });
  return json(
    429,
    {
      error: 'temporarily_unavailable',
      error_description: `too many ${route} requests from this address; retry in ${seconds} s`,
    },
    { 'retry-after': String(seconds) },
  );
}

/** The client id a consent page, token or revocation request names: in the query, else in its form. */
async function clientIdOf(request: Request): Promise<string> {
  const inQuery = new URL(request.url).searchParams.get('client_id');
  if (inQuery !== null || request.method !== 'POST') return inQuery ?? '';
  const body = await request
    .clone()
    .text()
    .catch(() => '');
  return body.length > MAX_BODY ? '' : (new URLSearchParams(body).get('client_id') ?? '');
}

/**
 * What a request is counted against: its address; on loopback, for a registration the address and
 * the client's name, for the other routes the address and the live client it names (oauth-limits.ts).
 */
async function limitedAs(route: LimitedRoute, request: Request, address: string, oauth: OAuthService): Promise<string> {
  if (route === 'register') {
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as { client_name?: unknown } | undefined;
    return registrationSubject(address, body?.client_name);
  }
  if (!isLoopback(address)) return address;
  const clientId = await clientIdOf(request);
  return clientSubject(address, clientId !== '' && (await oauth.isLiveClient(clientId)) ? clientId : undefined);
}

async function answerRoute(request: Request, route: Route, deps: OAuthDeps): Promise<Response> {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (method === 'OPTIONS' && route.cors) return preflight(route);
  const handle = route.methods[method];
  const allow = Object.keys(route.methods).join(', ');
  if (!handle) return json(405, { error: 'invalid_request', error_description: `use ${allow}` }, { allow });
  try {
    if (route.limit) {
      const oauth = await deps.oauth();
      const wait = await oauth.admit(route.limit, await limitedAs(route.limit, request, deps.address, oauth));
      if (wait !== undefined) return limited(route.limit, wait, deps);
    }
    return await handle(request, deps);
  } catch (error) {
    if (error instanceof OAuthError) return oauthError(error, route.limit ?? 'metadata', deps);
    if (isUnreachable(error)) return storeUnavailable(error, 'oauth');
    deps.log.error('oauth request failed', { error: loggable(error) });
    return json(500, { error: 'server_error', error_description: 'internal error; retry' });
  }
}

/** The answer for an OAuth path, or undefined when `path` is none of them. */
export async function oauthRoute(request: Request, path: string, deps: OAuthDeps): Promise<Response | undefined> {
  const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
  if (!route) return undefined;
  if (originProblem(request.headers.get('host'), null, deps.origins)) {
    return json(403, { error: 'invalid_request', error_description: 'this endpoint does not answer to that Host header' });
  }
  const response = await answerRoute(request, route, deps);
  if (route.cors) for (const [name, value] of Object.entries(CORS)) response.headers.set(name, value);
  return response;
}
