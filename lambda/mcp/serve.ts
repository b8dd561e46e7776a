import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { boundedBody, MAX_BODY_BYTES } from '../http/request-body.js';
import { LIMITS } from '../memory/limits.js';
import type { CurationService } from '../memory/curation/curation-service.js';
import type { ClientInfo, Principal } from '../memory/model.js';
import type { RequestLog } from '../observability.js';
import { clientFromSessionId, clientInfoFrom, sessionIdFor, UNKNOWN_CLIENT } from './client-info.js';
import { ResponseBudget } from './context.js';
import { KeySlots } from './key-slots.js';
import { paramsProblem } from './params.js';
import { createMcpServer } from './server.js';

/**
 * Work one request may ask for (docs/configuration.md, "Request limits"). Refused before any work
 * is done: more than 10 JSON-RPC messages in a batch, recall calls whose limits add up to more
 * than 100 memories. In this process one key has at most 4 requests in progress; 16 more wait
 * for a slot, each for at most 10 s; past that, 429 (a Lambda container serves one at a time
 * anyway). Checked as the answers are made: their JSON in all stays within 4 MiB; a call whose
 * answer would pass that gets a tool error instead.
 */
export const REQUEST_LIMITS = {
  batchMessages: 10,
  recalledPerRequest: 100,
  responseBytes: 4 * 1024 * 1024,
  concurrentPerKey: 4,
  waitingPerKey: 16,
  waitMs: 10_000,
} as const;

/** Requests in progress and waiting per key, in this process. */
const slots = new KeySlots({
  inProgress: REQUEST_LIMITS.concurrentPerKey,
  waiting: REQUEST_LIMITS.waitingPerKey,
  waitMs: REQUEST_LIMITS.waitMs,
});

const jsonRpcError = (status: number, code: number, message: string, id: string | number | null = null) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/**
 * A `tools/call` whose `arguments` is present but not an object (`null`, a list, a number): the SDK
 * would answer -32603 with its validator's raw output; JSON-RPC says -32602, in words.
 */
function hasInvalidToolArguments(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { arguments?: unknown } } | null;
  if (m?.method !== 'tools/call' || typeof m.params !== 'object' || m.params === null || !('arguments' in m.params)) return false;
  const args = m.params.arguments;
  return args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args));
}

/**
 * -32602 in words for the first message whose params do not fit its method, before any work: as
 * the answer to that message alone, or, in a batch, for the whole batch (400), which runs nothing.
 */
function invalidParams(body: unknown): Response | undefined {
  for (const message of Array.isArray(body) ? body : [body]) {
    const problem = hasInvalidToolArguments(message)
      ? 'Invalid params: tools/call arguments must be an object'
      : paramsProblem(message);
    if (!problem) continue;
    const id = (message as { id?: unknown }).id;
    return jsonRpcError(
      Array.isArray(body) ? 400 : 200,
      -32602,
      problem,
      typeof id === 'string' || typeof id === 'number' ? id : null,
    );
  }
  return undefined;
}

/** Memories the recall calls of a batch may return in all: each call's limit, or the default limit. */
function memoriesAskedFor(messages: readonly unknown[]): number {
  let asked = 0;
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown; arguments?: { limit?: unknown } } } | null;
    if (m?.method !== 'tools/call' || m.params?.name !== 'recall') continue;
    const limit = m.params.arguments?.limit;
    asked += typeof limit === 'number' && limit > 0 ? Math.min(limit, LIMITS.recallMax) : LIMITS.recallDefault;
  }
  return asked;
}

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
export async function serveMcp(
  request: Request,
  principal: Principal,
  memory: CurationService,
  log: RequestLog,
): Promise<Response> {
  const raw = await boundedBody(request);
  if (raw === undefined) return jsonRpcError(413, -32000, `request body over ${MAX_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return jsonRpcError(400, -32700, 'Parse error: Invalid JSON');
  }
  if (Array.isArray(body) && (body.length === 0 || body.length > REQUEST_LIMITS.batchMessages)) {
    return jsonRpcError(
      400,
      -32600,
      body.length === 0
        ? 'Invalid Request: an empty batch'
        : `Invalid Request: a batch of ${body.length} messages; at most ${REQUEST_LIMITS.batchMessages} per request`,
    );
  }
  const asked = Array.isArray(body) ? memoriesAskedFor(body) : 0;
  if (asked > REQUEST_LIMITS.recalledPerRequest) {
    return jsonRpcError(
      400,
      -32600,
      `Invalid Request: the recall calls of this batch ask for up to ${asked} memories; at most ${REQUEST_LIMITS.recalledPerRequest} per request: lower their limit or send fewer per batch`,
    );
  }
  const refused = invalidParams(body);
  if (refused) return refused;
  const release = await slots.acquire(principal.keyId);
  if (typeof release !== 'function') {
    const why =
      release === 'line_full'
        ? `${REQUEST_LIMITS.concurrentPerKey} in progress and ${REQUEST_LIMITS.waitingPerKey} waiting`
        : `no slot within ${REQUEST_LIMITS.waitMs / 1000} s`;
    const busy = jsonRpcError(
      429,
      -32000,
      `this key has too many requests at once (${why}; at most ${REQUEST_LIMITS.concurrentPerKey} in progress); retry when one has answered`,
    );
    busy.headers.set('retry-after', '1');
    return busy;
  }
  try {
    return await answer(request, body, principal, memory, log);
  } finally {
    release();
  }
}

async function answer(
  request: Request,
  body: unknown,
  principal: Principal,
  memory: CurationService,
  log: RequestLog,
): Promise<Response> {
  const initializing = initializeClient(body);
  const client = initializing ?? clientFromSessionId(request.headers.get('mcp-session-id')) ?? UNKNOWN_CLIENT;
  const server = createMcpServer({ memory, principal, client, log, budget: new ResponseBudget(REQUEST_LIMITS.responseBytes) });
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
