import { type OriginPolicy, originProblem } from '../http/origin.js';
import type { Principal } from '../memory/model.js';
import type { MemoryServices } from '../memory/services.js';
import type { RequestLog } from '../observability.js';
import { serveMcp } from './serve.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** What `/mcp` needs beyond the request: the memory, a log and the origin policy. */
export interface McpEndpointDeps {
  /** Built on first use: a refused request never touches the database. */
  readonly memory: () => Promise<MemoryServices>;
  readonly log: RequestLog;
  readonly origins: OriginPolicy;
}

/**
 * `/mcp`: stateless MCP over POST for an authorized principal. Another method is a 405, a
 * foreign origin a 403, a request without the authorizer's principal a 401.
 */
export async function mcpEndpoint(request: Request, principal: Principal | undefined, deps: McpEndpointDeps): Promise<Response> {
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
  return serveMcp(request, principal, (await deps.memory()).curation, deps.log);
}
