import { resolve } from 'node:path';
import { type Container, watchingOutages } from '../composition.js';
import {
  isRequestMethod,
  methodNotAllowed,
  type ProxyEvent,
  type ProxyResult,
  publicBase,
  toRequest,
} from '../http/api-gateway.js';
import { clientAddress } from '../http/client-address.js';
import { reachable, StoreUnavailableError, storeUnavailable } from '../http/unavailable.js';
import type { Principal } from '../memory/model.js';
import type { MemoryServices } from '../memory/services.js';
import { logger } from '../observability.js';
import type { PageApiDeps } from '../page/api.js';
import { pageFile } from '../page/files.js';

/**
 * The endpoint's router: which surface answers a request. Sign-in (OAuth discovery, registration,
 * consent, tokens), then the memory page's data API (`/api/…`) and its files, then the health
 * check and MCP (`/mcp`); anything else is a 404. The surfaces never import one another: only
 * this module knows them all.
 */

/** The MCP protocol stack (MCP SDK, zod, ajv, the tools): loaded by the first MCP request, not at load (decision 0051). */
const mcpEndpoint = () => import('../mcp/endpoint.js');
/** The page's data API: loaded by its first call (it reaches the MCP stack's limits; decision 0097). */
const pageApiRoutes = () => import('../page/api.js');
/** `isApiPath` of lambda/page/api.ts, without loading it: test/infra/in-step.test.ts holds the two equal. */
export const isApiPath = (path: string): boolean => /(^|\/)api\//.test(path);
/** The OAuth routes (decision 0054): loaded by the first sign-in request. */
const signInRoutes = () => import('../sign-in/routes.js');
const isSignInPath = (path: string) => path.startsWith('/.well-known/') || path.startsWith('/oauth/');

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * What is answered before any route, and counted by no metric: the stage's slash, and a method
 * the web platform cannot carry.
 */
export function beforeRouting(event: ProxyEvent): ProxyResult | undefined {
  // On API Gateway the page lives at the stage URL (`…/v1/`); without its slash the page's relative
  // links would lose the stage, so send the browser to the slash first.
  const stagePath = event.requestContext?.path;
  if (event.path === '/' && stagePath && !stagePath.endsWith('/')) {
    return { statusCode: 308, headers: { location: `${stagePath}/`, 'cache-control': 'no-store' }, body: '' };
  }
  // A method the web platform cannot carry (TRACE, CONNECT, an unknown token) ends here, before any work.
  return isRequestMethod(event.httpMethod) ? undefined : methodNotAllowed();
}

/** `GET /healthz`: open, and touches neither the database nor a model. */
const health = (method: string, region: string) =>
  method === 'GET' ? json(200, { status: 'ok', region }) : json(405, { message: 'use GET' }, { allow: 'GET' });

async function answer(
  event: ProxyEvent,
  principal: Principal | undefined,
  runtime: Container,
  deps: PageApiDeps,
): Promise<Response> {
  const request = toRequest(event);
  if (isSignInPath(event.path)) {
    const base = publicBase(event);
    const address = clientAddress(event.requestContext?.identity?.sourceIp);
    const oauth = { oauth: reachable(() => runtime.oauth(base)), base, origins: deps.origins, log: logger, address };
    const signIn = await (await signInRoutes()).oauthRoute(request, event.path, oauth);
    if (signIn) return signIn;
  }
  if (isApiPath(event.path)) return (await pageApiRoutes()).pageApi(request, principal, deps);
  const file = await pageFile(request.method, event.path);
  if (file) return file;
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  if (path.endsWith('/healthz')) return health(request.method, runtime.config.region);
  if (path.endsWith('/mcp')) return (await mcpEndpoint()).mcpEndpoint(request, principal, deps);
  return json(404, { message: 'not found; the MCP endpoint is POST /mcp' });
}

/**
 * The answer to one request. `memory` builds the memory service on first use (the health check,
 * the page's files and sign-in never do); a database that cannot be reached is a 503.
 */
export async function route(
  event: ProxyEvent,
  principal: Principal | undefined,
  runtime: Container,
  memory: () => Promise<MemoryServices>,
): Promise<Response> {
  const deps = {
    memory: reachable(memory),
    log: logger,
    origins: runtime.config.origins,
    ...(runtime.config.database.kind === 'pglite' ? { dataDir: resolve(runtime.config.dataDir) } : {}),
    ...(runtime.config.commandLine ? { commandLine: runtime.config.commandLine } : {}),
    importCallMs: runtime.config.importCallSeconds * 1_000,
  };
  const { value: answered, outage } = await watchingOutages(() =>
    answer(event, principal, runtime, deps).catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) return storeUnavailable(error);
      throw error;
    }),
  );
  // A warm container that lost its database answers as a cold one does: 503, Retry-After (decision 0097).
  return outage && answered.status !== 503 ? storeUnavailable(new StoreUnavailableError(outage)) : answered;
}
