import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { MemoryService } from '../memory/service.js';
import type { ClientInfo, Principal } from '../memory/model.js';
import { clientFromSessionId, clientInfoFrom, sessionIdFor, UNKNOWN_CLIENT } from './client-info.js';
import type { ToolLog } from './context.js';
import { createMcpServer } from './server.js';

/** Requests larger than this are refused before parsing: content is capped at 8 KiB anyway. */
export const MAX_BODY_BYTES = 1024 * 1024;

const jsonRpcError = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** The client info of an `initialize` request (single or in a batch), if the body is one. */
function initializeClient(body: unknown): ClientInfo | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const init = messages.find((m) => (m as { method?: unknown } | null)?.method === 'initialize') as
    | { params?: { clientInfo?: unknown } }
    | undefined;
  return init ? (clientInfoFrom(init.params?.clientInfo) ?? UNKNOWN_CLIENT) : undefined;
}

/**
 * Serves one MCP request statelessly: a fresh server and transport, JSON responses. The
 * client's name travels in the session id it echoes back (see client-info.ts).
 */
export async function serveMcp(request: Request, principal: Principal, memory: MemoryService, log: ToolLog): Promise<Response> {
  const raw = await request.text();
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES) return jsonRpcError(413, -32000, `request body over ${MAX_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return jsonRpcError(400, -32700, 'Parse error: Invalid JSON');
  }
  const initializing = initializeClient(body);
  const client = initializing ?? clientFromSessionId(request.headers.get('mcp-session-id')) ?? UNKNOWN_CLIENT;
  const server = createMcpServer({ memory, principal, client, log });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (!initializing || response.status !== 200) return response;
    const headers = new Headers(response.headers);
    headers.set('mcp-session-id', sessionIdFor(initializing));
    return new Response(await response.text(), { status: response.status, headers });
  } finally {
    await server.close();
  }
}
