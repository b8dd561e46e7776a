import { randomUUID } from 'node:crypto';
import type { ToolLog } from '../mcp/context.js';
import { loggable, outcomeOf } from '../mcp/tool-result.js';
import { InvalidInputError } from '../memory/errors.js';
import type { Memory, Principal, RecalledMemory, Source } from '../memory/model.js';
import type { MemoryService } from '../memory/service.js';
import { type OriginPolicy, originProblem } from './origin.js';
import { StoreUnavailableError } from './unavailable.js';

/**
 * The memory page's data API under `/api/`: JSON in web terms over the same MemoryService the MCP
 * tools use, for a principal the authorizer already checked. Every read is read only: looking is
 * not recalling (docs/decisions/0053).
 */

export interface WebApiDeps {
  readonly memory: () => Promise<MemoryService>;
  readonly log: ToolLog;
  readonly origins: OriginPolicy;
}

/** Headers of every API answer: never cached, never sniffed, no CORS. */
const API_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...API_HEADERS, ...headers } });

const iso = (d: Date) => d.toISOString();
const sourceJson = (s: Source) => ({ agent: s.agent, client: s.client, origin: s.origin, at: iso(s.at) });

function memoryJson(m: Memory) {
  return {
    id: m.id,
    kind: m.kind,
    content: m.content,
    pinned: m.pinned,
    createdAt: iso(m.createdAt),
    lastUsefulAt: iso(m.lastUsefulAt),
    recallCount: m.recallCount,
    restatements: m.restatements,
    agent: m.source.agent,
    client: m.source.client,
    origin: m.source.origin,
    restatedBy: m.restatedBy.map(sourceJson),
    conflicts: m.conflicts,
  };
}

const scoredJson = (m: RecalledMemory) => ({ ...memoryJson(m), score: m.score });

/** An optional integer query parameter; text that is not a whole number is a clear error. */
function integer(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,6}$/.test(raw)) throw new InvalidInputError(`${name} must be a whole number`);
  return Number(raw);
}

const text = (params: URLSearchParams, name: string) => params.get(name) || undefined;

type Route = (service: MemoryService, principal: Principal, params: URLSearchParams, id: string | undefined) => Promise<unknown>;

const ROUTES: Record<string, Route> = {
  'GET overview': async (s, p) => {
    const o = await s.overview(p);
    return { ...o, judge: { name: o.judge.provider, lastCallOk: o.judge.lastCallOk } };
  },
  'GET memories': async (s, p, q) => {
    const page = await s.browse(p, { kind: text(q, 'kind'), cursor: text(q, 'cursor'), limit: integer(q, 'limit') });
    return { memories: page.memories.map(memoryJson), nextCursor: page.nextCursor ?? null };
  },
  'GET search': async (s, p, q) => {
    const kinds = text(q, 'kinds')
      ?.split(',')
      .filter((k) => k !== '');
    const found = await s.search(p, { query: q.get('q') ?? '', kinds, limit: integer(q, 'limit') });
    return { memories: found.map(scoredJson) };
  },
  'DELETE memories': async (s, p, q, id) => {
    if (id !== undefined) {
      const gone = await s.forget(p, { ids: [id] });
      return { deleted: gone.deleted, count: gone.count };
    }
    const kind = text(q, 'kind');
    if (kind === undefined && q.get('all') !== 'true')
      throw new InvalidInputError('name a memory id, a kind (?kind=) or all (?all=true)');
    const gone = await s.forget(p, { all: true, kind });
    return { count: gone.count, journalLinesRemoved: gone.journalLinesRemoved };
  },
  'GET journal': async (s, p, q) => {
    const page = await s.journal(p, text(q, 'cursor'));
    return {
      lines: page.lines.map((l) => ({
        at: iso(l.at),
        kind: l.kind,
        rule: l.rule,
        ageSeconds: l.ageSeconds,
        recallCount: l.recallCount,
      })),
      nextCursor: page.nextCursor ?? null,
    };
  },
  'GET journal/daily': async (s, p, q) => ({ days: await s.journalByDay(p, integer(q, 'days')) }),
  'GET next': async (s, p, q) => ({
    kinds: (await s.nextToGo(p, integer(q, 'limit'))).map((k) => ({
      ...k,
      evictNext: k.evictNext.map((m) => ({ ...m, lastUsefulAt: iso(m.lastUsefulAt) })),
      expiringNext: k.expiringNext.map((m) => ({ ...m, expiresAt: iso(m.expiresAt) })),
    })),
  }),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The route a method and path name: `memories/{id}` carries an id; anything else is matched whole. */
function routeOf(method: string, path: string): { route: Route; id: string | undefined } | undefined {
  const rest = path.replace(/^.*?\/api\//, '');
  const one = /^memories\/([^/]+)$/.exec(rest);
  if (one?.[1] !== undefined && method === 'DELETE') {
    // A UUID holds no escapes: the raw segment is checked as it came (a malformed `%E0` is a 400, never a throw).
    const id = one[1];
    return { route: ROUTES['DELETE memories'] as Route, id: UUID.test(id) ? id.toLowerCase() : 'invalid:' };
  }
  const route = ROUTES[`${method} ${rest}`];
  return route ? { route, id: undefined } : undefined;
}

/**
 * How a failure reaches the page, classified as the MCP tools classify it (`outcomeOf`): the
 * caller's input is a 400; a busy database or an unavailable embedder a 503 with Retry-After,
 * logged; anything else a 500 with a correlation id, never its message.
 */
function failure(error: unknown, log: ToolLog, route: string): Response {
  const outcome = outcomeOf(error);
  if (outcome === 'bad_input') return json(400, { error: (error as Error).message });
  if (outcome === 'store_busy' || outcome === 'embedder_unavailable' || outcome === 'judge_unavailable') {
    log.error('web api call failed', { route, outcome, error: loggable(error) });
    return json(503, { error: (error as Error).message }, { 'retry-after': '1' });
  }
  const correlationId = randomUUID();
  log.error('web api call failed', { route, correlationId, error: loggable(error) });
  return json(500, { error: `internal error; nothing more is shown here (correlation id ${correlationId})` });
}

/** Answers one `/api/…` request of an authorized principal. */
export async function webApi(request: Request, principal: Principal | undefined, deps: WebApiDeps): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, '');
  const found = routeOf(request.method, path);
  if (!found) return json(404, { error: 'no such API route' });
  const refused = originProblem(request.headers.get('host'), request.headers.get('origin'), deps.origins);
  if (refused) return json(403, { error: refused });
  // API Gateway's authorizer stands in front; without its context, refuse rather than run anonymous.
  if (!principal) return json(401, { error: 'no authorized principal' }, { 'www-authenticate': 'Bearer' });
  const started = Date.now();
  const name = `${request.method} ${path.replace(/\/api\/memories\/[^/]+$/, '/api/memories/{id}')}`;
  try {
    if (found.id?.startsWith('invalid:')) throw new InvalidInputError('a memory id is a UUID');
    const body = await found.route(await deps.memory(), principal, url.searchParams, found.id);
    deps.log.info('web api call', { route: name, ok: true, latencyMs: Date.now() - started });
    return json(200, body);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    return failure(error, deps.log, name);
  }
}

/** Whether a request path belongs to the data API. */
export const isApiPath = (path: string): boolean => /(^|\/)api\//.test(path);
