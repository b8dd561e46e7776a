import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { container } from '../composition.js';
import { principalOf, type ProxyEvent, type ProxyResult, toRequest, toResult } from '../http/api-gateway.js';
import { endpoint } from '../mcp/endpoint.js';
import { logger } from '../observability.js';

/** The MCP function: API Gateway proxy event in, stateless MCP over HTTP, proxy result out. */
async function handleMcp(event: ProxyEvent, _context: Context): Promise<ProxyResult> {
  const principal = principalOf(event);
  if (principal) logger.appendKeys({ userId: principal.userId, keyId: principal.keyId });
  const runtime = container();
  const response = await endpoint(toRequest(event), principal, {
    region: runtime.config.region,
    memory: () => runtime.memory(),
    log: logger,
  });
  return toResult(response);
}

export const handler = middy(handleMcp).use(injectLambdaContext(logger, { resetKeys: true }));
