import { randomBytes, randomUUID } from 'node:crypto';

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
  const memories = Array.from({ length: 90 }, (_, i) => ({
    id: randomUUID(),
    kind: 'fact',
    content: largeMemory(10_000 * imports + i),
    pinned: false,
    createdAt: at,
    lastUsefulAt: at,
    recallCount: 0,
    restatements: 1,
    agent: 'bench',
    client: 'bench',
    origin: null,
    restatedBy: [],
    conflicts: [],
  }));
  return JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: new Date().toISOString(), memories, journal: [] });
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

/** The value at quantile `q` of sorted numbers. */
export const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
