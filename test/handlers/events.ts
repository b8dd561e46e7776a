import { randomUUID } from 'node:crypto';
import { localContext } from '../../lambda/dev/lambda-context.js';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context, ScheduledEvent } from 'aws-lambda';

/**
 * Builders of the events API Gateway (REST API, Lambda proxy integration, TOKEN authorizer) and
 * EventBridge send, shaped as the real services shape them, for calling the exported handlers directly.
 */

export const STAGE_ARN = 'arn:aws:execute-api:eu-central-1:123456789012:a1b2c3d4e5/v1';

export interface AuthorizerContext {
  readonly userId: string;
  readonly region: string;
  readonly agent: string;
  readonly keyId: string;
}

export interface ProxyEventOptions {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The context an Allow from the authorizer puts in the request; absent on open routes. */
  readonly authorizer?: AuthorizerContext;
}

export function tokenEvent(authorizationToken: string, method = 'POST', path = '/mcp'): APIGatewayTokenAuthorizerEvent {
  return { type: 'TOKEN', authorizationToken, methodArn: `${STAGE_ARN}/${method}${path}` };
}

export function proxyEvent(options: ProxyEventOptions): APIGatewayProxyEvent {
  const headers: Record<string, string> = {
    Host: 'a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com',
    'X-Forwarded-Proto': 'https',
    ...(options.body === undefined ? {} : { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }),
    ...options.headers,
  };
  const requestId = randomUUID();
  return {
    resource: options.path,
    path: options.path,
    httpMethod: options.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: 'a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com',
      authorizer: options.authorizer
        ? { principalId: options.authorizer.userId, integrationLatency: 12, ...options.authorizer }
        : null,
      httpMethod: options.method,
      identity: { sourceIp: '203.0.113.7', userAgent: 'naaba-tests' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/v1${options.path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'abc123',
      resourcePath: options.path,
      stage: 'v1',
    },
  };
}

/** A JSON-RPC request to POST /mcp. */
export function mcpCall(method: string, params: Record<string, unknown>, authorizer?: AuthorizerContext): APIGatewayProxyEvent {
  return proxyEvent({
    method: 'POST',
    path: '/mcp',
    body: { jsonrpc: '2.0', id: 1, method, params },
    ...(authorizer ? { authorizer } : {}),
  });
}

export function scheduledEvent(): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'eu-central-1',
    resources: ['arn:aws:events:eu-central-1:123456789012:rule/naaba-sweep'],
    detail: {},
  };
}

/** A Lambda context as the runtime passes it: the local server's, with a fresh request id. */
export function lambdaContext(functionName: string): Context {
  return localContext(functionName, randomUUID());
}
