import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { watchingOutages } from '../adapters/pg/outage-watch.js';
import { type Container, container } from '../composition.js';
import {
  isRequestMethod,
  methodNotAllowed,
  principalOf,
  type ProxyEvent,
  type ProxyResult,
  publicBase,
  toRequest,
  toResult,
} from '../http/api-gateway.js';
import { clientAddress } from '../http/client-address.js';
import { reachable, StoreUnavailableError, storeUnavailable } from '../http/unavailable.js';
import type { WebApiDeps } from '../http/web-api.js';
import { webPage } from '../http/web-page.js';
import type { Principal } from '../memory/model.js';
import type { MemoryService } from '../memory/service.js';
import { count, logger, observed, type TracerModules, traced } from '../observability.js';

/** The MCP protocol stack (MCP SDK, zod, ajv, the tools): loaded by the first request, not at load (decision 0051). */
const mcpEndpoint = () => import('../mcp/endpoint.js');
/** The page's data API: loaded by its first call (it reaches the MCP stack's limits; decision 0097). */
const webApiRoutes = () => import('../http/web-api.js');
/** `isApiPath` of lambda/http/web-api.ts, without loading it: test/infra/in-step.test.ts holds the two equal. */
export const isApiPath = (path: string): boolean => /(^|\/)api\//.test(path);
/** The OAuth routes (decision 0054): loaded by the first sign-in request. */
const oauthRoutes = () => import('../http/oauth.js');
const isOAuthPath = (path: string) => path.startsWith('/.well-known/') || path.startsWith('/oauth/');

/** The judge's calls of this invocation: the judge-unavailable rate is `judge_unavailable / judge_asked`. */
function countJudge(memory: MemoryService | undefined): void {
  const judged = memory?.judgeHealth.takeCounts();
  if (!judged || judged.asked === 0) return;
  count('judge_asked', judged.asked);
  count('judge_unavailable', judged.unavailable);
}

/** Which part of the function answers: sign-in (OAuth), the page's data API, the page's files, or MCP. */
async function answer(
  event: ProxyEvent,
  principal: Principal | undefined,
  runtime: Container,
  deps: WebApiDeps,
): Promise<Response> {
  const request = toRequest(event);
  if (isOAuthPath(event.path)) {
    const base = publicBase(event);
    const address = clientAddress(event.requestContext?.identity?.sourceIp);
    const oauth = { oauth: reachable(() => runtime.oauth(base)), base, origins: deps.origins, log: logger, address };
    const signIn = await (await oauthRoutes()).oauthRoute(request, event.path, oauth);
    if (signIn) return signIn;
  }
  if (isApiPath(event.path)) return (await webApiRoutes()).webApi(request, principal, deps);
  return (
    (await webPage(request.method, event.path)) ??
    (await (await mcpEndpoint()).endpoint(request, principal, { ...deps, region: runtime.config.region }))
  );
}

/**
 * The MCP function: API Gateway proxy event in, proxy result out. It answers MCP (`/mcp`), the
 * health check, the memory page's files and its data API (`/api/…`), and OAuth sign-in; only MCP
 * loads the MCP stack, only sign-in the OAuth routes.
 */
async function handleMcp(event: ProxyEvent, _context: Context): Promise<ProxyResult> {
  const principal = principalOf(event);
  if (principal) logger.appendKeys({ userId: principal.userId, keyId: principal.keyId });
  const runtime = container();
  let memory: MemoryService | undefined;
  const deps = {
    memory: reachable(async () => {
      memory = await runtime.memory();
      return memory;
    }),
    log: logger,
    origins: runtime.config.origins,
  };
  // On API Gateway the page lives at the stage URL (`…/v1/`); without its slash the page's relative
  // links would lose the stage, so send the browser to the slash first.
  const stagePath = event.requestContext?.path;
  if (event.path === '/' && stagePath && !stagePath.endsWith('/')) {
    return { statusCode: 308, headers: { location: `${stagePath}/`, 'cache-control': 'no-store' }, body: '' };
  }
  // A method the web platform cannot carry (TRACE, CONNECT, an unknown token) ends here, before any work.
  if (!isRequestMethod(event.httpMethod)) return methodNotAllowed();
  const { value: answered, outage } = await watchingOutages(() =>
    answer(event, principal, runtime, deps).catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) return storeUnavailable(error);
      throw error;
    }),
  );
  // A warm container that lost its database answers as a cold one does: 503, Retry-After (decision 0097).
  const response = outage && answered.status !== 503 ? storeUnavailable(new StoreUnavailableError(outage)) : answered;
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

// X-Ray segments for the MCP function only: it alone has active tracing (and calls Bedrock).
export const handler = middy(handleMcp).use(observed()).use(traced(xray));
