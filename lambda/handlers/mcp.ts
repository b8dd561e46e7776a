import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { container } from '../composition.js';
import { principalOf, type ProxyEvent, type ProxyResult, toRequest, toResult } from '../http/api-gateway.js';
import { endpoint } from '../mcp/endpoint.js';
import { count, logger, observed } from '../observability.js';

/** X-Ray segments for the MCP function only (it alone calls Bedrock); Powertools disables it outside Lambda. */
const tracer = new Tracer({ serviceName: 'naaba' });

/** The MCP function: API Gateway proxy event in, stateless MCP over HTTP, proxy result out. */
async function handleMcp(event: ProxyEvent, _context: Context): Promise<ProxyResult> {
  const principal = principalOf(event);
  if (principal) logger.appendKeys({ userId: principal.userId, keyId: principal.keyId });
  const runtime = container();
  const response = await endpoint(toRequest(event), principal, {
    region: runtime.config.region,
    memory: () => runtime.memory(),
    log: logger,
    origins: runtime.config.origins,
  });
  count(`http_${Math.floor(response.status / 100)}xx`);
  return toResult(response);
}

// captureResponse off: a response carries memory content, which never goes to a trace.
export const handler = middy(handleMcp)
  .use(observed())
  .use(captureLambdaHandler(tracer, { captureResponse: false }));
