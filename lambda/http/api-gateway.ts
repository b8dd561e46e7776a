import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import type { AuthorizationDecision } from '../auth/authorize.js';
import type { Principal } from '../memory/model.js';
import { parseHost } from './origin.js';

/**
 * The one module that knows API Gateway's shapes (REST API, Lambda proxy integration, TOKEN
 * authorizer): events to web-standard Requests and back, authorizer decisions to policies, and the
 * gateway responses for 401, 403 and the authorizer's failure. The local server uses the builders here to produce the very
 * events API Gateway would send.
 */

export type ProxyEvent = APIGatewayProxyEvent;
export type ProxyResult = APIGatewayProxyResult;
export type TokenAuthorizerEvent = APIGatewayTokenAuthorizerEvent;
export type AuthorizerResult = APIGatewayAuthorizerResult;

/** What a TOKEN authorizer throws to make API Gateway answer 401. */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * What the authorizer throws when it cannot decide (the key store is unreadable): any error but
 * {@link UNAUTHORIZED} fails the invocation, and API Gateway answers with its authorizer-failure
 * gateway response. The message is fixed because the Lambda runtime logs it.
 */
export class AuthorizerFailure extends Error {
  override name = 'AuthorizerFailure';

  constructor() {
    super('the key store could not be read');
  }
}

/**
 * Bodies of the gateway responses. The CDK stack declares the same ones as API Gateway
 * gateway responses (UNAUTHORIZED, ACCESS_DENIED, AUTHORIZER_FAILURE); a test keeps the two in step.
 */
export const GATEWAY_RESPONSES = {
  unauthorized: {
    status: 401,
    /** `$resourceMetadata` is the URL of the protected resource metadata (RFC 9728 §5.1): see {@link wwwAuthenticate}. */
    headers: { 'WWW-Authenticate': 'Bearer resource_metadata="$resourceMetadata", scope="memory"' },
    body: '{"message":"missing, malformed, unknown, expired or revoked bearer token; OAuth clients: see WWW-Authenticate"}',
  },
  accessDenied: {
    status: 403,
    headers: {},
    /** `$context.authorizer.keyRegion` is filled in from the authorizer's deny context. */
    body: '{"message":"this key belongs to region $context.authorizer.keyRegion; call that region\'s endpoint"}',
  },
  /** The authorizer failed (key store down or slow): a retryable 503 instead of API Gateway's bare 500. */
  authorizerFailure: {
    status: 503,
    headers: { 'Retry-After': '5' },
    body: '{"message":"the endpoint cannot check keys right now; retry in a few seconds"}',
  },
} as const;

/** Where a client finds how to sign in to `/mcp` (RFC 9728 §3.1, under the endpoint's base URL). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/**
 * The scope a token for `/mcp` carries (`SCOPE` of lambda/auth/oauth.ts), named in every 401's
 * challenge as the MCP authorization spec asks (RFC 6750 §3): the local server's and the stack's
 * UNAUTHORIZED gateway response alike, which declares a copy of {@link GATEWAY_RESPONSES}.
 */
export const CHALLENGE_SCOPE = 'memory';

/** The 401's challenge for the endpoint at `base`: points OAuth clients at the resource metadata and names the scope. */
export function wwwAuthenticate(base: string): string {
  return GATEWAY_RESPONSES.unauthorized.headers['WWW-Authenticate'].replace(
    '$resourceMetadata',
    `${base}${RESOURCE_METADATA_PATH}`,
  );
}

function header(event: ProxyEvent, name: string): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry?.[1] ?? undefined;
}

/**
 * The public base URL the request came in on: `https://<domain>/<stage>` on API Gateway (the
 * domain and stage from the request context, not from a header), `https://<custom domain>` behind
 * a custom domain mapped at its root, and `http://<Host>` on the local server, whose Host the
 * origin policy checks.
 */
export function publicBase(event: ProxyEvent): string {
  const domain = event.requestContext?.domainName;
  if (!domain) {
    const host = header(event, 'host');
    return `http://${host && parseHost(host) ? host : 'localhost'}`;
  }
  const full = event.requestContext.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
  return `https://${domain}${prefix.replace(/\/$/, '')}`;
}

/** Methods a web-standard Request can carry and some route of the API may answer. */
const REQUEST_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Whether `method` is one the endpoint answers at all: `TRACE`, `CONNECT` and unknown tokens are not. */
export const isRequestMethod = (method: string): boolean => REQUEST_METHODS.has(method.toUpperCase());

/** The 405 for a method no route answers. The method is not echoed: it is caller text. */
export function methodNotAllowed(): ProxyResult {
  return {
    statusCode: 405,
    headers: { 'content-type': 'application/json', allow: [...REQUEST_METHODS].join(', ') },
    body: '{"message":"method not allowed"}',
  };
}

/** Converts a proxy event to a web-standard Request. */
export function toRequest(event: ProxyEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers.set(name, value);
  const method = event.httpMethod.toUpperCase();
  const body =
    event.body === null || method === 'GET' || method === 'HEAD'
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  // A malformed Host (user info, a path, a fragment, `[`) must not make the request unbuildable,
  // nor reach the URL: the endpoint judges Host itself.
  const host = headers.get('host') ?? 'api.local';
  const base = parseHost(host) ? host : 'invalid.host';
  return new Request(`https://${base}${event.path}${queryOf(event)}`, { method, headers, body });
}

/** The query string API Gateway parsed into the event, rebuilt (`?a=1&a=2`), or '' without one. */
function queryOf(event: ProxyEvent): string {
  const query = new URLSearchParams();
  const multi = event.multiValueQueryStringParameters ?? {};
  const single = event.queryStringParameters ?? {};
  for (const [name, values] of Object.entries(multi)) for (const value of values ?? []) query.append(name, value);
  for (const [name, value] of Object.entries(single)) if (!(name in multi) && value !== undefined) query.append(name, value);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** Converts a web-standard Response to a proxy result. */
export async function toResult(response: Response): Promise<ProxyResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { statusCode: response.status, headers, body: await response.text() };
}

/** The principal the authorizer put in the request context, or undefined when there is none. */
export function principalOf(event: ProxyEvent): Principal | undefined {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const { userId, region, agent, keyId } = context ?? {};
  if ([userId, region, agent, keyId].some((v) => typeof v !== 'string' || v === '')) return undefined;
  return { userId: userId as string, region: region as string, agent: agent as string, keyId: keyId as string };
}

/** Every method and path of the API's stage: an allow is cached per token, so it must cover them all. */
function stageWildcard(methodArn: string): string {
  // arn:aws:execute-api:REGION:ACCOUNT:API_ID/STAGE/METHOD/PATH → …:API_ID/STAGE/*
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

function policy(effect: 'Allow' | 'Deny', resource: string) {
  return { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] };
}

/** The authorizer's answer in API Gateway's terms; throws {@link UNAUTHORIZED} for a 401. */
export function authorizerResult(decision: AuthorizationDecision, methodArn: string): AuthorizerResult {
  switch (decision.effect) {
    case 'unauthorized':
      throw new Error(UNAUTHORIZED);
    case 'wrong_region':
      return {
        principalId: 'wrong-region',
        policyDocument: policy('Deny', methodArn),
        context: { keyRegion: decision.keyRegion },
      };
    case 'allow': {
      const { userId, region, agent, keyId } = decision.principal;
      return {
        principalId: userId,
        policyDocument: policy('Allow', stageWildcard(methodArn)),
        context: { userId, region, agent, keyId },
      };
    }
  }
}

/* ---- Builders for the local server: the events and answers API Gateway itself would produce. ---- */

export interface LocalRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | null;
  readonly requestId: string;
  /** The query string's parameters, each with its values in order. */
  readonly query?: Readonly<Record<string, readonly string[]>>;
  /** The peer address of the connection: what API Gateway puts in `identity.sourceIp`. */
  readonly sourceIp?: string;
}

export const LOCAL_METHOD_ARN_PREFIX = 'arn:aws:execute-api:local:000000000000:naaba-local/local';

export function tokenAuthorizerEvent(authorization: string, request: LocalRequest): TokenAuthorizerEvent {
  return {
    type: 'TOKEN',
    authorizationToken: authorization,
    methodArn: `${LOCAL_METHOD_ARN_PREFIX}/${request.method}${request.path}`,
  };
}

export function proxyEvent(request: LocalRequest, authorizer: AuthorizerResult | undefined): ProxyEvent {
  return {
    body: request.body,
    headers: request.headers,
    multiValueHeaders: {},
    httpMethod: request.method,
    isBase64Encoded: false,
    path: request.path,
    pathParameters: null,
    queryStringParameters: request.query
      ? Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, v.at(-1)]))
      : null,
    multiValueQueryStringParameters: request.query
      ? Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, [...v]]))
      : null,
    stageVariables: null,
    resource: request.path,
    requestContext: {
      accountId: '000000000000',
      apiId: 'naaba-local',
      authorizer: authorizer ? { principalId: authorizer.principalId, ...authorizer.context } : null,
      httpMethod: request.method,
      identity: { sourceIp: request.sourceIp ?? '' } as ProxyEvent['requestContext']['identity'],
      path: `/local${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: request.requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: request.path,
      stage: 'local',
    },
  };
}

/**
 * The gateway response API Gateway sends when the authorizer does not allow: 401 on a thrown
 * {@link UNAUTHORIZED}, 503 on any other failure of the authorizer, 403 on a deny.
 */
export function refusal(result: AuthorizerResult | 'unauthorized' | 'failed', base: string): ProxyResult {
  if (result === 'unauthorized') {
    const r = GATEWAY_RESPONSES.unauthorized;
    return {
      statusCode: r.status,
      headers: { 'content-type': 'application/json', 'WWW-Authenticate': wwwAuthenticate(base) },
      body: r.body,
    };
  }
  if (result === 'failed') {
    const r = GATEWAY_RESPONSES.authorizerFailure;
    return { statusCode: r.status, headers: { 'content-type': 'application/json', ...r.headers }, body: r.body };
  }
  const keyRegion = String(result.context?.keyRegion ?? '');
  const r = GATEWAY_RESPONSES.accessDenied;
  return {
    statusCode: r.status,
    headers: { 'content-type': 'application/json' },
    body: r.body.replace('$context.authorizer.keyRegion', keyRegion),
  };
}

export function isAllowed(result: AuthorizerResult): boolean {
  return result.policyDocument.Statement.every((s) => s.Effect === 'Allow');
}
