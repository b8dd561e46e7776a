import type { MemoryService } from '../memory/service.js';
import type { Principal } from '../memory/model.js';
import { type OriginPolicy, originProblem } from '../http/origin.js';
import type { RequestLog } from '../observability.js';
import { serveMcp } from './serve.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

export interface EndpointDeps {
  readonly region: string;
  /** Built on first use: /healthz must answer without touching the database or a model. */
  readonly memory: () => Promise<MemoryService>;
  readonly log: RequestLog;
  readonly origins: OriginPolicy;
}

/**
 * The HTTP surface of the MCP function: `GET /healthz` (open, touches nothing), `POST /mcp`
 * (stateless MCP for an authorized principal), 405 for other methods on /mcp.
 */
export async function endpoint(request: Request, principal: Principal | undefined, deps: EndpointDeps): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  if (path.endsWith('/healthz')) {
    return request.method === 'GET'
      ? json(200, { status: 'ok', region: deps.region })
      : json(405, { message: 'use GET' }, { allow: 'GET' });
  }
  if (!path.endsWith('/mcp')) return json(404, { message: 'not found; the MCP endpoint is POST /mcp' });
  if (request.method !== 'POST') {
    return json(
      405,
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST only' }, id: null },
      { allow: 'POST' },
    );
  }
  const refused = originProblem(request.headers.get('host'), request.headers.get('origin'), deps.origins);
  if (refused) return json(403, { message: refused });
  // API Gateway's authorizer stands in front; without its context, refuse rather than run anonymous.
  if (!principal) return json(401, { message: 'no authorized principal' }, { 'www-authenticate': 'Bearer' });
  return serveMcp(request, principal, await deps.memory(), deps.log);
}
