import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ConsentError, type OAuthService, SCOPE } from '../auth/oauth.js';
import { registrationJson } from '../auth/oauth-clients.js';
import { OAuthError } from '../auth/oauth-errors.js';
import type { ToolLog } from '../mcp/context.js';
import { loggable } from '../mcp/tool-result.js';
import { RESOURCE_METADATA_PATH } from './api-gateway.js';
import { consentCsp, consentPage, refusalPage } from './consent-page.js';
import { type OriginPolicy, originProblem } from './origin.js';

/**
 * The OAuth routes of the endpoint (MCP authorization spec; docs/decisions/0054): protected
 * resource metadata (RFC 9728), authorization server metadata (RFC 8414), registration
 * (RFC 7591), the consent page and the token endpoint. Open routes: what they issue is bound to a
 * key the person types on the consent page.
 */

export interface OAuthDeps {
  readonly oauth: () => Promise<OAuthService>;
  /** The public base URL the request came in on: the issuer. */
  readonly base: string;
  readonly origins: OriginPolicy;
  readonly log: ToolLog;
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
const CSRF_COOKIE = 'naaba_oauth_csrf';

const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...headers } });

/** Public metadata: cacheable for a few minutes and readable by browser-based clients. */
const metadata = (body: unknown) =>
  new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300', 'access-control-allow-origin': '*' },
  });

const oauthError = (error: OAuthError) =>
  json(
    error.status,
    { error: error.code, error_description: error.message },
    error.status === 429 ? { 'retry-after': '60' } : {},
  );

const html = (status: number, body: string, csp: string, headers: Record<string, string> = {}) =>
  new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      // Not no-referrer: with it Chromium sends `Origin: null` on the form's POST, which the origin check refuses.
      'referrer-policy': 'same-origin',
      ...NO_STORE,
      ...headers,
    },
  });

const redirect = (to: string) => new Response(null, { status: 303, headers: { location: to, ...NO_STORE } });

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

function cookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

const sameSecret = (a: string | undefined, b: string | null) =>
  a !== undefined && b !== null && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The double-submit CSRF cookie: this path only, never sent cross-site, Secure on https. */
function csrfCookie(base: string, value: string): string {
  const url = new URL(base);
  const secure = url.protocol === 'https:' ? '; Secure' : '';
  return `${CSRF_COOKIE}=${value}; Path=${url.pathname.replace(/\/$/, '')}/oauth/authorize; HttpOnly; SameSite=Strict; Max-Age=900${secure}`;
}

async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const text = await request.text();
  return text.length > MAX_BODY ? undefined : new URLSearchParams(text);
}

async function showConsent(request: Request, deps: OAuthDeps): Promise<Response> {
  const oauth = await deps.oauth();
  const checked = await oauth.check(new URL(request.url).searchParams);
  if ('kind' in checked) {
    return checked.kind === 'page' ? html(checked.status, refusalPage(checked.message), consentCsp()) : redirect(checked.to);
  }
  const csrf = randomBytes(24).toString('base64url');
  return html(200, consentPage(checked, csrf), consentCsp(checked.redirectUri), { 'set-cookie': csrfCookie(deps.base, csrf) });
}

async function answerConsent(request: Request, deps: OAuthDeps): Promise<Response> {
  const problem = originProblem(request.headers.get('host'), request.headers.get('origin'), deps.origins);
  const form = await readForm(request);
  if (problem || !form) return html(403, refusalPage(problem ?? 'The form is too large.'), consentCsp());
  const csrf = cookie(request, CSRF_COOKIE);
  if (!sameSecret(csrf, form.get('csrf'))) {
    return html(403, refusalPage('This form did not come from this page, or it expired. Start the sign-in again.'), consentCsp());
  }
  const oauth = await deps.oauth();
  const checked = await oauth.check(form);
  if ('kind' in checked) {
    return checked.kind === 'page' ? html(checked.status, refusalPage(checked.message), consentCsp()) : redirect(checked.to);
  }
  if (form.get('decision') !== 'allow') return redirect(oauth.denied(checked));
  try {
    return redirect(await oauth.consent(checked, form.get('key') ?? ''));
  } catch (error) {
    if (!(error instanceof ConsentError)) throw error;
    const fresh = randomBytes(24).toString('base64url');
    return html(error.status, consentPage(checked, fresh, error.message), consentCsp(checked.redirectUri), {
      'set-cookie': csrfCookie(deps.base, fresh),
    });
  }
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
  const client = await (await deps.oauth()).register(body);
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
  await (await deps.oauth()).revoke(form);
  return new Response(null, { status: 200, headers: NO_STORE });
}

const ROUTES: Record<string, Partial<Record<string, (request: Request, deps: OAuthDeps) => Promise<Response>>>> = {
  '/oauth/authorize': { GET: showConsent, POST: answerConsent },
  '/oauth/register': { POST: register },
  '/oauth/token': { POST: token },
  '/oauth/revoke': { POST: revoke },
};

/** The answer for an OAuth path, or undefined when `path` is none of them. */
export async function oauthRoute(request: Request, path: string, deps: OAuthDeps): Promise<Response | undefined> {
  if (!OAUTH_PATHS.includes(path)) return undefined;
  if (originProblem(request.headers.get('host'), null, deps.origins)) {
    return json(403, { error: 'invalid_request', error_description: 'this endpoint does not answer to that Host header' });
  }
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (METADATA_PATHS.has(path) || path === SERVER_METADATA_PATH) {
    if (method !== 'GET') return json(405, { error: 'invalid_request', error_description: 'use GET' }, { allow: 'GET' });
    return metadata(path === SERVER_METADATA_PATH ? serverMetadata(deps.base) : resourceMetadata(deps.base));
  }
  const handle = ROUTES[path]?.[method];
  if (!handle) return json(405, { error: 'invalid_request', error_description: `${request.method} is not allowed here` });
  try {
    return await handle(request, deps);
  } catch (error) {
    if (error instanceof OAuthError) return oauthError(error);
    deps.log.error('oauth request failed', { error: loggable(error) });
    return json(500, { error: 'server_error', error_description: 'internal error; retry' });
  }
}
