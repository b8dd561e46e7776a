import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Container, installContainer } from '../composition.js';
import { handler as authorizerHandler } from '../handlers/authorizer.js';
import { handler as mcpHandler } from '../handlers/mcp.js';
import {
  type AuthorizerResult,
  isAllowed,
  type LocalRequest,
  type ProxyResult,
  proxyEvent,
  refusal,
  tokenAuthorizerEvent,
  UNAUTHORIZED,
} from '../http/api-gateway.js';
import { OAUTH_PATHS } from '../http/oauth.js';
import { PAGE_PATHS } from '../http/web-page.js';
import { MAX_BODY_BYTES } from '../mcp/serve.js';
import { loggable } from '../mcp/tool-result.js';
import { logger } from '../observability.js';
import type { RegionSweepReport } from '../region-sweep.js';
import { handleAdmin } from './admin.js';
import { localContext } from './lambda-context.js';

/**
 * A small stand-in for API Gateway: each HTTP request becomes the event API Gateway would send,
 * and goes to the same exported authorizer and MCP handlers that Lambda runs.
 */

export interface LocalServerOptions {
  readonly host: string;
  readonly port: number;
  readonly container: Container;
  /** Enables key administration for the CLI while this server owns the data folder. */
  readonly adminSecret?: string;
  /** The server's own sweep, which `naaba sweep` runs through the admin route while the server owns the folder. */
  readonly sweep?: () => Promise<RegionSweepReport>;
}

export interface LocalServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * What API Gateway does in front of POST /mcp: no header is a 401 without calling the authorizer;
 * a thrown `Unauthorized` is a 401, any other failure of the authorizer its failure response.
 */
async function authorizeLocally(request: LocalRequest): Promise<AuthorizerResult | 'unauthorized' | 'failed'> {
  const authorization = request.headers.authorization;
  if (!authorization) return 'unauthorized';
  try {
    const event = tokenAuthorizerEvent(authorization, request);
    return await authorizerHandler(event, localContext('naaba-authorizer', request.requestId));
  } catch (error) {
    return error instanceof Error && error.message === UNAUTHORIZED ? 'unauthorized' : 'failed';
  }
}

/** The API's open resources, as the stack declares them: API Gateway answers anything else itself. */
const RESOURCES = new Set(['/mcp', '/healthz', ...PAGE_PATHS, ...OAUTH_PATHS]);
/** `/api/{proxy+}`: any method, behind the authorizer. */
const API_PROXY = /^\/api\/.+/;

async function route(request: LocalRequest): Promise<ProxyResult> {
  const api = API_PROXY.test(request.path);
  if (!api && !RESOURCES.has(request.path)) {
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"not found; the MCP endpoint is POST /mcp"}',
    };
  }
  let authorizer: AuthorizerResult | undefined;
  if (api || (request.path === '/mcp' && request.method === 'POST')) {
    const result = await authorizeLocally(request);
    if (result === 'unauthorized' || result === 'failed' || !isAllowed(result)) {
      return refusal(result, `http://${request.headers.host ?? 'localhost'}`);
    }
    authorizer = result;
  }
  return mcpHandler(proxyEvent(request, authorizer), localContext('naaba-mcp', request.requestId));
}

function send(res: ServerResponse, status: number, headers: Record<string, unknown>, body: string): void {
  res.writeHead(status, headers as Record<string, string>);
  res.end(body);
}

async function serve(req: IncomingMessage, res: ServerResponse, options: LocalServerOptions): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) return send(res, 413, { 'content-type': 'application/json' }, '{"message":"request body too large"}');
  const url = new URL(req.url ?? '/', 'http://local');
  const path = url.pathname;
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  const method = req.method ?? 'GET';
  if (path.startsWith('/admin/') && options.adminSecret) {
    const secret = req.headers['x-naaba-admin'];
    const answer = await handleAdmin(
      { method, path, body, secret: typeof secret === 'string' ? secret : undefined },
      options.adminSecret,
      { keys: await options.container.keys(), sweep: options.sweep },
    );
    return send(res, answer.status, { 'content-type': 'application/json' }, JSON.stringify(answer.body));
  }
  const request: LocalRequest = {
    method,
    path,
    headers: headersOf(req),
    body: body === '' ? null : body,
    requestId: randomUUID(),
    ...(url.search === '' ? {} : { query }),
  };
  const result = await route(request);
  send(res, result.statusCode, result.headers ?? {}, result.body);
}

/** Starts the local endpoint; port 0 picks a free port. */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  installContainer(options.container);
  const server: Server = createServer((req, res) => {
    serve(req, res, options).catch((error: unknown) => {
      logger.error('local server request failed', { error: loggable(error) });
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"message":"internal error"}');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
