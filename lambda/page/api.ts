import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../memory/errors.js';
import { canonicalId } from '../memory/ids.js';
import { checkText } from '../memory/limits.js';
import { journalLineJson, memoryJson } from '../memory/memory-json.js';
import { transferMemory } from '../memory/transfer/transfer-file.js';
import type { Memory, Principal, RecalledMemory } from '../memory/model.js';
import type { PinRoom } from '../memory/page/outlook.js';
import { outcomeOf } from '../memory/outcome.js';
import type { MemoryServices } from '../memory/services.js';
import type { MemoryFilters, MemoryOrder } from '../ports/page-store.js';
import { loggable, type RequestLog } from '../observability.js';
import { CLIENTS, clientConfig, connectLine } from '../http/client-config.js';
import { type OriginPolicy, originProblem } from '../http/origin.js';
import { boundedBody, MAX_BODY_BYTES } from '../http/request-body.js';
import { StoreUnavailableError } from '../http/unavailable.js';
import type { FoundMemory, MemoriesJson, MemoryAnswerJson, NextJson, OverviewJson, PageMemory, SearchJson } from './contract.js';

/**
 * The memory page's data API under `/api/`: JSON in web terms over the same memory services the MCP
 * tools use, for a principal the authorizer already checked. Every read is read only: looking is
 * not recalling (docs/decisions/0053).
 */

export interface PageApiDeps {
  readonly memory: () => Promise<MemoryServices>;
  readonly log: RequestLog;
  readonly origins: OriginPolicy;
  /** The local server's data folder, absolute, which its `naaba connect` line names; absent on a deployed endpoint. */
  readonly dataDir?: string;
  /** How the local server's person runs naaba, for that line (bin/cli/invoked.ts); `npx naaba` when absent. */
  readonly commandLine?: readonly string[];
  /** How long one import call runs before it starts no new step (`NAABA_IMPORT_CALL_SECONDS`); 6 s when absent. */
  readonly importCallMs?: number;
}

/**
 * How long one import call runs before it starts no new step: with the step it is in and the
 * check before the first, a call answers within 10 s (decision 0147), well inside API Gateway's
 * 29 s. A larger import answers `complete: false` and the same file sent again goes on.
 */
const IMPORT_CALL_MS = 6_000;

/** Headers of every API answer: never cached, never sniffed, no CORS. */
const API_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...API_HEADERS, ...headers } });

const iso = (d: Date) => d.toISOString();

/** Memories as the page shows them: the one JSON shape, each with what the policy says of it now (decision 0138). */
async function pageMemories(s: MemoryServices, p: Principal, memories: readonly Memory[]): Promise<PageMemory[]> {
  if (memories.length === 0) return [];
  const room: PinRoom = await s.page.pinRoom(p);
  const outlooks = s.page.outlooks(memories, room);
  return memories.map((m, i) => ({ ...memoryJson(m), outlook: outlooks[i]! }));
}

/** Memories the search found: as the page shows them, with the ranking's score and distance after each. */
async function foundJson(s: MemoryServices, p: Principal, found: readonly RecalledMemory[]): Promise<FoundMemory[]> {
  const shown = await pageMemories(s, p, found);
  return shown.map((m, i) => ({ ...m, score: found[i]!.score, distance: found[i]!.distance }));
}

/** An optional integer query parameter; text that is not a whole number is a clear error. */
function integer(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,6}$/.test(raw)) throw new InvalidInputError(`${name} must be a whole number`);
  return Number(raw);
}

/**
 * An optional text query parameter, held to the tools' text rules (limits.ts `checkText`): a NUL or
 * an unpaired surrogate is the caller's mistake, named, and never reaches a store.
 */
function text(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  checkText(name, raw, { chars: QUERY_TEXT_CHARS });
  return raw;
}

/** The longest text query parameter: past any origin (512), key name, client or cursor this server gives. */
const QUERY_TEXT_CHARS = 1000;

/** An optional `true`/`false` query parameter; anything else is a clear error. */
function flag(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') throw new InvalidInputError(`${name} must be true or false`);
  return raw === 'true';
}

/** The listing's filters as the query string names them. */
const filtersOf = (q: URLSearchParams): MemoryFilters => ({
  agent: text(q, 'agent'),
  client: text(q, 'client'),
  origin: text(q, 'origin'),
  pinned: flag(q, 'pinned'),
  conflicting: flag(q, 'conflicting'),
});

/** The request's JSON body, bounded as the MCP endpoint bounds its own. */
async function jsonBody(request: Request): Promise<unknown> {
  const raw = await boundedBody(request);
  if (raw === undefined) {
    throw new InvalidInputError(
      `the body is over ${MAX_BODY_BYTES} bytes; import a larger file with naaba import while the server is stopped, or in parts (--kind)`,
    );
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidInputError('the body is not JSON; send the file naaba export wrote');
  }
}

/** A selection's body: `{ ids: [uuid…], pinned?: boolean }`, each id a UUID. */
function selection(body: unknown): { ids: string[]; pinned: boolean | undefined } {
  const { ids, pinned } = (body ?? {}) as { ids?: unknown; pinned?: unknown };
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || canonicalId(id) === undefined))
    throw new InvalidInputError('ids must be a list of memory ids (UUIDs)');
  if (pinned !== undefined && typeof pinned !== 'boolean') throw new InvalidInputError('pinned must be true or false');
  return { ids: ids.map((id) => canonicalId(id as string) ?? ''), pinned };
}

const notFound = () => json(404, { error: 'no such memory: it was forgotten, evicted or expired, or it is not yours' });

type Route = (
  service: MemoryServices,
  principal: Principal,
  params: URLSearchParams,
  id: string | undefined,
  request: Request,
  deps: PageApiDeps,
) => Promise<unknown>;

const ROUTES: Record<string, Route> = {
  'GET overview': async (s, p): Promise<OverviewJson> => {
    const o = await s.page.overview(p);
    return { ...o, judge: { name: o.judge.provider, lastCallOk: o.judge.lastCallOk } };
  },
  'GET memories': async (s, p, q): Promise<MemoriesJson> => {
    const order = text(q, 'order') as MemoryOrder | undefined;
    const page = await s.page.browse(p, {
      kind: text(q, 'kind'),
      cursor: text(q, 'cursor'),
      limit: integer(q, 'limit'),
      order,
      filters: filtersOf(q),
    });
    return {
      memories: await pageMemories(s, p, page.memories),
      nextCursor: page.nextCursor ?? null,
      total: page.total ?? null,
    };
  },
  'GET memories/{id}': async (s, p, _q, id): Promise<MemoryAnswerJson | Response> => {
    const memory = await s.page.memory(p, id ?? '');
    return memory ? { memory: (await pageMemories(s, p, [memory]))[0]! } : notFound();
  },
  'PUT memories/{id}/pin': async (s, p, _q, id) => {
    const pinned = await s.page.setPinned(p, id ?? '', true);
    return pinned ? { id, ...pinned } : notFound();
  },
  'DELETE memories/{id}/pin': async (s, p, _q, id) => {
    const pinned = await s.page.setPinned(p, id ?? '', false);
    return pinned ? { id, ...pinned } : notFound();
  },
  // Several memories at once, all or none: the page's selection (decision 0112).
  'POST pins': async (s, p, _q, _id, request) => {
    const { ids, pinned } = selection(await jsonBody(request));
    const changed = await s.page.setPinnedMany(p, ids, pinned ?? true);
    return changed ?? notFound();
  },
  'POST forget': async (s, p, _q, _id, request) => {
    const gone = await s.curation.forget(p, { ids: selection(await jsonBody(request)).ids });
    return { deleted: gone.deleted, count: gone.count };
  },
  'GET writers': async (s, p) => ({ writers: await s.page.writers(p) }),
  // How to connect each client to the MCP URL the page names (its own): never with the key, which the page adds itself.
  // `command` is the `naaba connect` line that joins the signed-in user (decision 0111).
  'GET connect': async (_s, p, q, _id, _request, deps) => {
    const url = q.get('url') ?? '';
    const parsed = URL.canParse(url) && url.length <= 2000 ? new URL(url) : undefined;
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.username || parsed.search || parsed.hash)
      throw new InvalidInputError('url must be the http(s) address of the MCP endpoint');
    const target = deps.dataDir ? { dataDir: deps.dataDir, region: p.region } : { endpoint: parsed.href, region: p.region };
    return {
      clients: CLIENTS.map((c) => ({
        ...clientConfig(c, parsed.href),
        command: connectLine(c, p.userId, target, deps.commandLine),
      })),
    };
  },
  'GET export/memories': async (s, p, q) => {
    const page = await s.transfer.exportMemories(p, text(q, 'cursor'));
    // The file's format leaves supersession out (decision 0107).
    return { memories: page.memories.map((m) => transferMemory(memoryJson(m))), nextCursor: page.nextCursor ?? null };
  },
  'GET export/journal': async (s, p, q) => {
    const page = await s.transfer.exportJournal(p, text(q, 'cursor'));
    return { lines: page.lines.map(journalLineJson), nextCursor: page.nextCursor ?? null };
  },
  'POST import': async (s, p, _q, _id, request, deps) => ({
    imported: await s.transfer.importMemories(p, await jsonBody(request), {
      stopAfterMs: deps.importCallMs ?? IMPORT_CALL_MS,
    }),
  }),
  // The listing's filters hold for search too: what the controls show is what the answer kept.
  'GET search': async (s, p, q): Promise<SearchJson> => {
    const kinds = text(q, 'kinds')
      ?.split(',')
      .filter((k) => k !== '');
    const found = await s.page.search(p, { query: q.get('q') ?? '', kinds, limit: integer(q, 'limit'), filters: filtersOf(q) });
    return { memories: await foundJson(s, p, found) };
  },
  'DELETE memories/{id}': async (s, p, _q, id) => {
    const gone = await s.curation.forget(p, { ids: [id ?? ''] });
    return { deleted: gone.deleted, count: gone.count };
  },
  'DELETE memories': async (s, p, q) => {
    const kind = text(q, 'kind');
    if (kind === undefined && q.get('all') !== 'true')
      throw new InvalidInputError('name a memory id, a kind (?kind=) or all (?all=true)');
    const gone = await s.curation.forget(p, { all: true, kind });
    return { count: gone.count, journalLinesRemoved: gone.journalLinesRemoved };
  },
  'GET journal': async (s, p, q) => {
    const page = await s.page.journal(p, text(q, 'cursor'), integer(q, 'limit'));
    return { lines: page.lines.map(journalLineJson), nextCursor: page.nextCursor ?? null };
  },
  'GET journal/daily': async (s, p, q) => ({ days: await s.page.journalByDay(p, integer(q, 'days')) }),
  'GET journal/hourly': async (s, p, q) => ({ hours: await s.page.journalByHour(p, integer(q, 'hours')) }),
  'GET next': async (s, p, q): Promise<NextJson> => ({
    kinds: (await s.page.nextToGo(p, integer(q, 'limit'))).map((k) => ({
      ...k,
      evictNext: k.evictNext.map((m) => ({ ...m, lastUsefulAt: iso(m.lastUsefulAt) })),
      expiringNext: k.expiringNext.map((m) => ({ ...m, expiresAt: iso(m.expiresAt) })),
    })),
  }),
};

/** The route a method and path name: `memories/{id}` and `memories/{id}/pin` carry an id; anything else is matched whole. */
function routeOf(method: string, path: string): { route: Route; id: string | undefined } | undefined {
  const rest = path.replace(/^.*?\/api\//, '');
  const one = /^memories\/([^/]+)(\/pin)?$/.exec(rest);
  if (one?.[1] !== undefined) {
    const route = ROUTES[`${method} memories/{id}${one[2] ?? ''}`];
    // A UUID holds no escapes: the raw segment is checked as it came (a malformed `%E0` is a 400, never a throw).
    const id = one[1];
    return route ? { route, id: canonicalId(id) ?? 'invalid:' } : undefined;
  }
  const route = ROUTES[`${method} ${rest}`];
  return route ? { route, id: undefined } : undefined;
}

/**
 * How a failure reaches the page, classified as the MCP tools classify it (`outcomeOf`): the
 * caller's input is a 400; a busy database or an unavailable embedder a 503 with Retry-After,
 * logged; anything else a 500 with a correlation id, never its message.
 */
function failure(error: unknown, log: RequestLog, route: string): Response {
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
export async function pageApi(request: Request, principal: Principal | undefined, deps: PageApiDeps): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, '');
  const found = routeOf(request.method, path);
  if (!found) return json(404, { error: 'no such API route' });
  const refused = originProblem(request.headers.get('host'), request.headers.get('origin'), deps.origins);
  if (refused) return json(403, { error: refused });
  // API Gateway's authorizer stands in front; without its context, refuse rather than run anonymous.
  if (!principal) return json(401, { error: 'no authorized principal' }, { 'www-authenticate': 'Bearer' });
  const started = Date.now();
  const name = `${request.method} ${path.replace(/\/api\/memories\/[^/]+(\/pin)?$/, '/api/memories/{id}$1')}`;
  try {
    if (found.id?.startsWith('invalid:')) throw new InvalidInputError('a memory id is a UUID');
    const body = await found.route(await deps.memory(), principal, url.searchParams, found.id, request, deps);
    deps.log.info('web api call', { route: name, ok: true, latencyMs: Date.now() - started });
    return body instanceof Response ? body : json(200, body);
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    return failure(error, deps.log, name);
  }
}

/** Whether a request path belongs to the data API. */
export const isApiPath = (path: string): boolean => /(^|\/)api\//.test(path);
