import { randomBytes } from 'node:crypto';
import { exportDocument, exportedMemory } from '../test/support/export-file.js';

/** What `npm run bench:fairness` floods the endpoint with: one request of each kind, as a hostile client sends it. */

export interface FloodRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface Flood {
  readonly name: string;
  /** Connections that send at once; `--loops` when absent. */
  readonly loops?: number;
  /** Measure whether a key never used before gets in while this flood runs (random tokens: decision 0063, issue 34). */
  readonly newKeyDuring?: true;
  /** The `n`-th request of a loop, with the flood key's token where the flood uses one. */
  request(token: string, n: number): FloodRequest;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const WORDS = ['river', 'market', 'harvest', 'ledger', 'ferry', 'granary', 'well', 'school', 'clinic', 'road', 'tower', 'bridge'];

/** About 8,000 bytes of distinct text: the largest memory a caller may send is 8 KiB. */
export function largeMemory(i: number): string {
  const parts: string[] = [];
  for (let w = 0; parts.join(' ').length < 7_900; w += 1)
    parts.push(`${WORDS[(i * 7 + w) % WORDS.length]}${(i * 131 + w) % 997}`);
  return `Record ${i}: ${parts.join(' ')}`.slice(0, 8_000);
}

const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

export const FLOODS: readonly Flood[] = [
  {
    name: 'flood: batches of 10 recalls (limit 10) over 100 memories of 8 KB',
    request: (token, n) => ({
      path: '/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(
        Array.from({ length: 10 }, (_, i) =>
          toolCall(i + 1, 'recall', { query: `${WORDS[(n + i) % WORDS.length]} record`, limit: 10 }),
        ),
      ),
    }),
  },
  {
    name: 'flood: remembers of 8 KB',
    request: (token, n) => ({
      path: '/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(toolCall(1, 'remember', { content: largeMemory(1_000 + n), kind: 'event' })),
    }),
  },
  {
    name: 'flood: random bearer tokens, no key',
    newKeyDuring: true,
    request: () => ({
      path: '/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer nb_${randomBytes(32).toString('base64url')}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }),
  },
  {
    // Issue 52: the hostile tester's flood, 20 loops at once whatever `--loops` says.
    name: 'flood: random bearer tokens from 20 loops, no key',
    loops: 20,
    request: () => ({
      path: '/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer nb_${randomBytes(32).toString('base64url')}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }),
  },
  {
    name: 'flood: OAuth registrations, no key',
    request: (_, n) => ({
      path: '/oauth/register',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: `flood ${n}`, redirect_uris: ['http://127.0.0.1:9/cb'] }),
    }),
  },
];

let imports = 0;

/** An export file of 90 memories of 8 KB (745 KB), new text at each call: each import writes all of it. */
export function importFile(): string {
  imports += 1;
  const at = new Date(Date.now() - 3_600_000).toISOString();
  return exportFile(
    Array.from({ length: 90 }, (_, i) => largeMemory(10_000 * imports + i)),
    at,
  );
}

/** An export file of these contents, each a fact of the bench's written at `at`. */
function exportFile(contents: readonly string[], at: string): string {
  return JSON.stringify(exportDocument(contents.map((content) => exportedMemory(content, at))));
}

/** One import at a time from the flood key (the issue-34 load): each a new file of 745 KB. */
export const IMPORT_FLOOD: Flood = {
  name: 'one import of 90 memories of 8 KB (745 KB) through /api/import',
  loops: 1,
  request: (token) => ({
    path: '/api/import',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: importFile(),
  }),
};

/** Memories of the bulk key's one partition (issue 52): the page's bulk actions act on a large one. */
export const BULK_PARTITION = 5_000;
/** Ids a bulk action names at once: the page's most. */
const BULK_IDS = 100;

/** An export file of `n` short facts: the bulk key's partition, imported before the server starts. */
export function bulkFile(n: number): string {
  const at = new Date(Date.now() - 3_600_000).toISOString();
  return exportFile(
    Array.from(
      { length: n },
      (_, i) => `Bulk note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} number ${i * 13}.`,
    ),
    at,
  );
}

/** Names of the bulk loads, known before the ids they act on. */
export const BULK_NAMES = {
  pins: `bulk: pin, then unpin, ${BULK_IDS} ids at a time on a ${BULK_PARTITION.toLocaleString('en')}-memory partition`,
  forget: `bulk: forget ${BULK_IDS} ids at a time on a ${BULK_PARTITION.toLocaleString('en')}-memory partition (one loop)`,
} as const;

/** Slices of 100 ids the forgets take, first to last; the pins act on the slices after them, never forgotten. */
const FORGET_SLICES = 35;

/**
 * The page's bulk actions from the bulk key over `ids`, its partition's memories: pins and unpins
 * of 100 ids from every loop, over the last 1,500 ids; and forgets of 100 ids from one loop, each a
 * slice of the first 3,500 not forgotten yet (35 forgets; past them a forget finds nothing).
 */
export function bulkFloods(ids: readonly string[], token: string): Flood[] {
  const slices = Math.floor(ids.length / BULK_IDS);
  const slice = (k: number) => ids.slice(k * BULK_IDS, (k + 1) * BULK_IDS);
  const pinSlice = (k: number) => slice(FORGET_SLICES + (k % Math.max(slices - FORGET_SLICES, 1)));
  const api = (path: string, body: unknown): FloodRequest => ({
    path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  let forgotten = 0;
  return [
    {
      name: BULK_NAMES.pins,
      request: (_, n) => {
        const [loop, k] = [Math.floor(n / 1_000_000), n % 1_000_000];
        return api('/api/pins', { ids: pinSlice(loop * 3 + Math.floor(k / 2)), pinned: k % 2 === 0 });
      },
    },
    {
      name: BULK_NAMES.forget,
      loops: 1,
      request: () => api('/api/forget', { ids: slice(Math.min(forgotten++, FORGET_SLICES - 1)) }),
    },
  ];
}

/** The value at quantile `q` of sorted numbers. */
export const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
