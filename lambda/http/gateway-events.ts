import type { Principal } from '../memory/model.js';
import type { ProxyEvent, TokenAuthorizerEvent } from './api-gateway.js';

/**
 * The events API Gateway would send, built for the release checks (decision 0091), which invoke a
 * new version directly before any traffic reaches it: a TOKEN authorizer event and a proxy event,
 * with the authorizer's context when the route is behind it. Kept here, beside the one module that
 * reads these shapes.
 */

/** The stage a check's events claim to come from; the functions read only its shape. */
const CHECK_API = 'release-check';
const CHECK_HOST = 'release-check.invalid';

/** What the authorizer is asked for a request to `POST /mcp` with `token`. */
export function checkTokenEvent(token: string, region: string): TokenAuthorizerEvent {
  return {
    type: 'TOKEN',
    authorizationToken: `Bearer ${token}`,
    methodArn: `arn:aws:execute-api:${region}:000000000000:${CHECK_API}/check/POST/mcp`,
  };
}

/** A proxy request to `path` of the MCP function, on behalf of `principal` when given. */
export function checkProxyEvent(method: 'GET' | 'POST', path: string, body?: unknown, principal?: Principal): ProxyEvent {
  const headers: Record<string, string> = {
    Host: CHECK_HOST,
    'X-Forwarded-Proto': 'https',
    'User-Agent': 'naaba-release-check',
    ...(body === undefined ? {} : { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }),
  };
  return {
    resource: path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: CHECK_API,
      domainName: CHECK_HOST,
      authorizer: principal ? { principalId: principal.userId, ...principal } : null,
      httpMethod: method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'naaba-release-check' } as ProxyEvent['requestContext']['identity'],
      path: `/check${path}`,
      protocol: 'HTTP/1.1',
      requestId: `release-check-${Date.now()}`,
      requestTimeEpoch: Date.now(),
      resourceId: CHECK_API,
      resourcePath: path,
      stage: 'check',
    },
  };
}
