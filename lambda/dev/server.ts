import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inLane } from '../adapters/pg/fair-queue.js';
import { securityEvent } from '../auth/security-events.js';
import { bearerToken, hashToken, isAccessToken } from '../auth/token.js';
import { type Container, installContainer } from '../composition.js';
import { handler as authorizerHandler, holdKnownKeys } from '../handlers/authorizer.js';
import { handler as endpointHandler } from '../handlers/endpoint.js';
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
import { clientAddress } from '../http/client-address.js';
import { MAX_BODY_BYTES } from '../http/request-body.js';
import { loggable, logger } from '../observability.js';
import type { RegionSweepReport } from '../region-sweep.js';
import { handleAdmin } from './admin.js';
import { FailedAuthLimit } from './failed-auth.js';
import type { KnownKeys } from '../auth/known-keys.js';
import { localContext } from './lambda-context.js';
import { refusalOf } from './request-checks.js';

/**
 * A small stand-in for API Gateway: each HTTP request becomes the event API Gateway would send,
 * and goes to the same exported authorizer and endpoint handlers that Lambda runs. Before any of that it
 * refuses odd requests (request-checks.ts), bounds failed authentications per client address
 * (failed-auth.ts), and runs each request in its caller's lane of the database's fair queue.
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

/** The client went away before it had its answer: a routine event, never an ERROR. */
class HungUp extends Error {
  override name = 'HungUp';
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw req.destroyed ? new HungUp('the client closed the connection', { cause: error }) : error;
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

/** Whose turn a request's statements take: its bearer token's (one per key), else its address's. */
function laneOf(tokenSha256: string | undefined, address: string): string {
  return tokenSha256 === undefined ? `address ${address}` : `token ${tokenSha256}`;
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

const jsonAnswer = (statusCode: number, message: string, headers: Record<string, string> = {}): ProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ message }),
});

/** What the local server keeps about authentications: failures per address, and the live keys' hashes. */
interface Guards {
  readonly failures: FailedAuthLimit;
  readonly known: () => Promise<KnownKeys>;
}

/**
 * Authorization as API Gateway does it, with the local bound on failed authentications per
 * address. A key token missing from the live keys' hashes skips the gate: the authorizer proves
 * it absent with a read it shares with every such token (known-keys.ts), not one of its own.
 */
async function authorizeBounded(
  request: LocalRequest,
  token: string | undefined,
  tokenSha256: string | undefined,
  { failures, known }: Guards,
): Promise<AuthorizerResult | ProxyResult> {
  const address = clientAddress(request.sourceIp);
  const hasToken = request.headers.authorization !== undefined;
  // A key store that cannot be had now proves nothing: the authorizer answers for the database.
  const held = token === undefined || isAccessToken(token) ? undefined : await known().catch(() => undefined);
  const unseen = held !== undefined && !held.has(tokenSha256 ?? '');
  const gated = hasToken && !unseen && failures.admission(address, tokenSha256 ?? '') === 'gate';
  // A check past the address's budget waits its turn at the gate, in the lane of that address's unverified tokens.
  const result = gated
    ? await failures.throughGate(address, () => inLane(`unverified ${address}`, () => authorizeLocally(request)))
    : await authorizeLocally(request);
  if (result === 'full') {
    securityEvent('rate_limited', { reason: 'failed_authentications', address, retryAfterSeconds: 1 });
    return jsonAnswer(429, 'too many failed authentications waiting from this address; retry in 1 s', { 'retry-after': '1' });
  }
  if (result === 'unauthorized' && hasToken) failures.failed(address, tokenSha256);
  if (result !== 'unauthorized' && result !== 'failed' && isAllowed(result) && tokenSha256)
    failures.allowed(address, tokenSha256);
  if (result === 'unauthorized' || result === 'failed' || !isAllowed(result)) {
    return refusal(result, `http://${request.headers.host ?? 'localhost'}`);
  }
  return result;
}

async function route(request: LocalRequest, guards: Guards): Promise<ProxyResult> {
  const token = bearerToken(request.headers.authorization);
  const tokenSha256 = token === undefined ? undefined : hashToken(token);
  return inLane(laneOf(tokenSha256, clientAddress(request.sourceIp)), async () => {
    let authorizer: AuthorizerResult | undefined;
    if (request.path.startsWith('/api/') || (request.path === '/mcp' && request.method === 'POST')) {
      const result = await authorizeBounded(request, token, tokenSha256, guards);
      if ('statusCode' in result) return result;
      authorizer = result;
    }
    return endpointHandler(proxyEvent(request, authorizer), localContext('naaba-mcp', request.requestId));
  });
}

function send(res: ServerResponse, status: number, headers: Record<string, unknown>, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, headers as Record<string, string>);
  res.end(body);
}

async function admin(req: IncomingMessage, path: string, method: string, body: string, options: LocalServerOptions) {
  const secret = req.headers['x-naaba-admin'];
  const given = typeof secret === 'string' ? secret : undefined;
  const answer = await handleAdmin({ method, path, body, secret: given }, options.adminSecret ?? '', {
    keys: await options.container.keys(),
    sweep: options.sweep,
  });
  if (method === 'DELETE' && answer.status === 200) {
    securityEvent('revocation', { reason: 'key_revoked_by_operator', address: clientAddress(req.socket.remoteAddress) });
  }
  return answer;
}

async function serve(req: IncomingMessage, res: ServerResponse, options: LocalServerOptions, guards: Guards) {
  const method = req.method ?? 'GET';
  const refused = refusalOf(method, req.url, req.headers.host, options.container.config.origins);
  if (refused) {
    req.resume();
    return send(
      res,
      refused.status,
      { 'content-type': 'application/json', ...refused.headers },
      JSON.stringify({ message: refused.message }),
    );
  }
  const url = new URL(req.url ?? '/', 'http://local.invalid');
  const body = await readBody(req);
  if (body === undefined) return send(res, 413, { 'content-type': 'application/json' }, '{"message":"request body too large"}');
  if (url.pathname.startsWith('/admin/') && options.adminSecret) {
    const answer = await admin(req, url.pathname, method, body, options);
    return send(res, answer.status, { 'content-type': 'application/json' }, JSON.stringify(answer.body));
  }
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  const request: LocalRequest = {
    method,
    path: url.pathname,
    headers: headersOf(req),
    body: body === '' ? null : body,
    requestId: randomUUID(),
    sourceIp: req.socket.remoteAddress ?? '',
    ...(url.search === '' ? {} : { query }),
  };
  const result = await route(request, guards);
  send(res, result.statusCode, result.headers ?? {}, result.body);
}

/** Starts the local endpoint; port 0 picks a free port. */
/** How long the local server keeps an idle kept-alive connection: well past what any client keeps one. */
export const IDLE_CONNECTION_MS = 65_000;

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  installContainer(options.container);
  const guards: Guards = {
    failures: new FailedAuthLimit(options.container.clock),
    known: async () => holdKnownKeys(await options.container.keyStore()),
  };
  const server: Server = createServer((req, res) => {
    // A connection reset is reported here and by the request; it is handled where it matters.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    serve(req, res, options, guards).catch((error: unknown) => {
      if (error instanceof HungUp || res.destroyed) {
        logger.debug('client closed the connection before its answer');
        return;
      }
      logger.error('local server request failed', { error: loggable(error) });
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"message":"internal error"}');
      else res.end();
    });
  });
  // What Node's parser refuses (an unknown method, a malformed request line or header) never
  // reaches a handler: a 400 where the socket can still take it, as JSON like every refusal.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) {
      const body = '{"message":"the request could not be parsed"}';
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      );
    } else socket.destroy();
  });
  // The server keeps an idle connection open longer than any client does (fetch keeps one 4 s): the
  // side that closes an idle connection must be the client. With Node's 5 s, a client on a busy
  // machine whose timers ran late sent its next request on a connection the server was closing, and
  // got ECONNRESET (the LoCoMo bench's client, three runs in one session).
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
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
