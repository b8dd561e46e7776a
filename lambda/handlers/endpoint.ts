import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { container } from '../composition.js';
import { principalOf, type ProxyEvent, type ProxyResult, toResult } from '../http/api-gateway.js';
import type { MemoryServices } from '../memory/services.js';
import { count, logger, observed, type TracerModules, traced } from '../observability.js';
import { beforeRouting, route } from './endpoint-router.js';

/** The judge's calls of this invocation: the judge-unavailable rate is `judge_unavailable / judge_asked`. */
function countJudge(memory: MemoryServices | undefined): void {
  const judged = memory?.judgeHealth.takeCounts();
  if (!judged || judged.asked === 0) return;
  count('judge_asked', judged.asked);
  count('judge_unavailable', judged.unavailable);
}

/**
 * The endpoint function: API Gateway proxy event in, proxy result out, for every route of the
 * regional endpoint (MCP, the memory page, sign-in, the health check; endpoint-router.ts chooses).
 */
async function handleEndpoint(event: ProxyEvent, _context: Context): Promise<ProxyResult> {
  const principal = principalOf(event);
  if (principal) logger.appendKeys({ userId: principal.userId, keyId: principal.keyId });
  const runtime = container();
  const early = beforeRouting(event);
  if (early) return early;
  let memory: MemoryServices | undefined;
  const response = await route(event, principal, runtime, async () => {
    memory = await runtime.memory();
    return memory;
  });
  countJudge(memory);
  count(`http_${Math.floor(response.status / 100)}xx`);
  return toResult(response);
}

/** The X-Ray SDK behind Powertools' tracer: imported here, so only this function's bundle carries it. */
const xray: TracerModules = async () => {
  const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
    import('@aws-lambda-powertools/tracer'),
    import('@aws-lambda-powertools/tracer/middleware'),
  ]);
  return { Tracer, captureLambdaHandler };
};

// X-Ray segments for the endpoint function only: it alone has active tracing (and calls Bedrock).
export const handler = middy(handleEndpoint).use(observed()).use(traced(xray));
