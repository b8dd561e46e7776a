import fc from 'fast-check';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';

/**
 * Odd values for every input a caller controls — each tool argument, each `/api/*` query
 * parameter, path id and body field, each field of an import file, each cursor — and the one
 * property they must all meet (decision 0148): the answer is never a 5xx nor an internal error;
 * a refusal is a 4xx (a tool error, for MCP) that names the field, and it writes nothing.
 * Shared by the PGlite run (test/e2e/odd-values.test.ts) and the PostgreSQL run
 * (test/pg/odd-values.test.ts).
 */

/** A running endpoint and one key's token, with the SQL it stores into. */
export interface OddTarget {
  readonly url: string;
  readonly token: string;
  readonly sql: SqlClient;
}

/** What one call answered, reduced to what the property checks. */
export interface Answer {
  readonly status: number;
  /** The refusal's words; undefined when the call was accepted. */
  readonly refusal: string | undefined;
  /** Refused whole before any field was read: a request line past the HTTP server's 16 KB. */
  readonly whole?: boolean;
}

/** One input a caller controls: a field and how a value reaches it. */
export interface OddInput {
  readonly label: string;
  /** What a refusal must name. */
  readonly names: RegExp;
  readonly values: fc.Arbitrary<unknown>;
  /** Values always tried, besides the random ones: the odd inputs known to have failed once. */
  readonly examples: readonly unknown[];
  send(target: OddTarget, value: unknown): Promise<Answer>;
}

const CURSOR_ID = '00000000-0000-4000-8000-000000000001';

/** Times at and beyond both ends of what any engine stores, and days that do not exist. */
export const ODD_TIMES = [
  '0000-01-01T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '0001-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '+010000-01-01T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-02-31T00:00:00.000Z',
  '2026-01-01T24:00:00.000Z',
  '2026-13-01T00:00:00.000Z',
];

/** Text that no store takes as it is: NUL, other controls, lone surrogates, overrides, blank, huge. */
const ODD_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00',
  '\uDBFF\uDBFF',
  '\u0085',
  '\u202E',
  '\u200B',
  'x'.repeat(10_000),
  'é'.repeat(5000),
  "'; DROP TABLE memories; --",
  '%00',
  '..%2F..%2F',
  'true',
  '-1',
  '0',
];

/** Numbers past every bound: huge, negative, fractional, not finite once JSON has them (null). */
const ODD_NUMBERS = [0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE];

/** A value nested `depth` levels deep, in arrays or objects. */
const nested = (depth: number, inObjects: boolean): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = inObjects ? { a: v } : [v];
  return v;
};

/** Empty and null collections, and deep nesting. */
const ODD_SHAPES: unknown[] = [null, [], {}, [null], [[]], { '': null }, nested(2000, false), nested(2000, true), false, true];

/** Strings made of the characters odd input is made of, in any mix. */
const oddChars = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\u0007', '\u007F', '\u009F', '\u202E', '\u2066', '\uFEFF', '|', '%', '\\'),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }),
  ),
  maxLength: 40,
});

/** Any odd value a JSON field can carry. */
export const oddJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TIMES, ...ODD_TEXT) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_NUMBERS, ...ODD_SHAPES) },
  { weight: 2, arbitrary: oddChars },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Any odd value a query parameter or a path segment can carry: text only. */
export const oddText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_TIMES, ...ODD_TEXT, '9'.repeat(400), '1e308', 'NaN', '-0', '[]', 'null') },
  { weight: 2, arbitrary: oddChars },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? '') },
);

/** Cursors: this server's form with odd values in it (times, counts, ids, lists), and raw odd text. */
export const oddCursor: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({
      list: fc.constantFrom('journal', 'created', 'last_useful', 'recalls', '', 'x'),
      value: fc.oneof(fc.constantFrom(...ODD_TIMES, '9999999999', '2147483648', '-1', '1.5', ''), oddChars),
      id: fc.constantFrom(CURSOR_ID, '-'.repeat(36), '', '\u0000'.repeat(36)),
      legacy: fc.boolean(),
    })
    .map(({ list, value, id, legacy }) =>
      Buffer.from(legacy ? `${value}|${id}` : `${list}|${value}|${id}`).toString('base64url'),
    ),
  oddText,
);

/** The odd values found failing before (issue 52): always tried. */
const JSON_EXAMPLES: readonly unknown[] = [
  null,
  [],
  '0000-01-01T00:00:00.000Z',
  'a\u0000b',
  '\uD800',
  1e308,
  nested(2000, false),
];
const TEXT_EXAMPLES: readonly string[] = ['\u0000', '\uD800', '0000-01-01T00:00:00.000Z', '9'.repeat(400)];
const CURSOR_EXAMPLES: readonly string[] = [
  ...['journal', 'created', 'last_useful'].flatMap((list) =>
    ['0000-01-01T00:00:00.000Z', '2026-02-31T00:00:00.000Z'].map((t) =>
      Buffer.from(`${list}|${t}|${CURSOR_ID}`).toString('base64url'),
    ),
  ),
  Buffer.from(`recalls|9999999999|${CURSOR_ID}`).toString('base64url'),
  Buffer.from(`0000-01-01T00:00:00.000Z|${CURSOR_ID}`).toString('base64url'),
];

/** The state a refused call must leave as it found it: every row a call could write, summed up. */
export async function stateOf(db: SqlClient): Promise<string> {
  const [row] = await db.query<{ s: string }>(sql`
SELECT concat_ws('/',
  (SELECT count(*) FROM memories), (SELECT count(*) FILTER (WHERE pinned) FROM memories),
  (SELECT COALESCE(sum(recall_count), 0) FROM memories), (SELECT max(last_useful_at)::text FROM memories),
  (SELECT count(*) FROM journal), (SELECT count(*) FROM memory_links), (SELECT count(*) FROM memory_terms),
  (SELECT count(*) FROM api_keys)) AS s`);
  return row?.s ?? '';
}

/** Past this, Node's HTTP parser (16 KB of request line and headers) refuses the request before any handler reads it. */
const LONGEST_PATH = 16_000;

/** Calls `/api/…` with the key's token and reduces the answer. */
async function api(target: OddTarget, method: string, path: string, body?: string): Promise<Answer> {
  const whole = path.length > LONGEST_PATH;
  const response = await fetch(`${target.url}/api/${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status < 400) return { status: response.status, refusal: undefined, whole };
  let error = text;
  try {
    error = String((JSON.parse(text) as { error?: unknown }).error ?? text);
  } catch {
    // Not JSON: the refusal's words are the body itself.
  }
  return { status: response.status, refusal: error, whole };
}

/** Calls a tool over JSON-RPC (stateless, no session) and reduces the answer: a tool error or a JSON-RPC error is a refusal. */
async function tool(target: OddTarget, name: string, args: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${target.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  if (response.status >= 500) return { status: response.status, refusal: text };
  const body = JSON.parse(text) as {
    error?: { message: string };
    result?: { isError?: boolean; content?: { text?: string }[] };
  };
  if (body.error) return { status: response.status, refusal: body.error.message };
  if (body.result?.isError) return { status: response.status, refusal: body.result.content?.[0]?.text ?? '' };
  return { status: response.status, refusal: undefined };
}

/** A valid tool call each odd argument replaces one field of. */
const TOOL_CALLS: Record<string, Record<string, unknown>> = {
  remember: { content: 'A memory written by the odd-values property.', kind: 'fact', pinned: false, origin: 'odd-values' },
  recall: { query: 'odd values', kinds: ['fact'], limit: 5, include_superseded: false },
  forget: { ids: [CURSOR_ID] },
  curation_state: { page_size: 5, cursor: undefined },
};

/** Every argument of every tool. */
function toolInputs(): OddInput[] {
  return Object.entries(TOOL_CALLS).flatMap(([name, valid]) =>
    [...Object.keys(valid), ...(name === 'forget' ? ['all', 'kind'] : [])].map((field) => ({
      label: `tool ${name}: ${field}`,
      names: new RegExp(`\\b${field}\\b|arguments`, 'i'),
      // `all: true` is no odd value: it forgets everything, as asked.
      values: field === 'cursor' ? fc.oneof(oddCursor, oddJson) : oddJson.filter((v) => !(field === 'all' && v === true)),
      examples: field === 'cursor' ? CURSOR_EXAMPLES : JSON_EXAMPLES,
      send: (target: OddTarget, value: unknown) => {
        // forget takes ids or all: an odd `all` or `kind` goes without ids.
        const base = name === 'forget' && field !== 'ids' ? {} : valid;
        const args = { ...base, [field]: value };
        if (name === 'forget' && field === 'kind') Object.assign(args, { all: true });
        return tool(target, name, args);
      },
    })),
  );
}

/** Query parameters of each read route, by route. */
const QUERY_ROUTES: [string, string, string[]][] = [
  ['GET', 'memories', ['kind', 'cursor', 'limit', 'order', 'agent', 'client', 'origin', 'pinned', 'conflicting']],
  ['GET', 'export/memories', ['cursor']],
  ['GET', 'export/journal', ['cursor']],
  ['GET', 'journal', ['cursor', 'limit']],
  ['GET', 'journal/daily', ['days']],
  ['GET', 'journal/hourly', ['hours']],
  ['GET', 'next', ['limit']],
  ['GET', 'search', ['q', 'kinds', 'limit']],
  ['GET', 'connect', ['url']],
  // Never `all`: a kind that is no kind is refused; `all=true` would forget everything, as asked.
  ['DELETE', 'memories', ['kind']],
];

/** Text as one path segment, every byte of its UTF-8 escaped (a lone surrogate goes as U+FFFD, as a browser sends it). */
const segment = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Every query parameter of every route, and the id of every route that takes one. */
function routeInputs(): OddInput[] {
  const params = QUERY_ROUTES.flatMap(([method, route, names]) =>
    names.map((name) => ({
      label: `${method} /api/${route}?${name}`,
      names: new RegExp(name === 'q' ? '\\bquery\\b|\\bq\\b' : `\\b${name}\\b`, 'i'),
      values: name === 'cursor' ? oddCursor : oddText,
      examples: name === 'cursor' ? CURSOR_EXAMPLES : TEXT_EXAMPLES,
      send: (target: OddTarget, value: unknown) => {
        const query = new URLSearchParams(route === 'search' && name !== 'q' ? { q: 'odd' } : {});
        query.set(name, String(value));
        return api(target, method, `${route}?${query}`);
      },
    })),
  );
  const ids = (
    [
      ['GET', ''],
      ['PUT', '/pin'],
      ['DELETE', '/pin'],
      ['DELETE', ''],
    ] as const
  ).map(([method, tail]) => ({
    label: `${method} /api/memories/{id}${tail}`,
    names: /memory id|no such memory/i,
    // A segment that is empty or a dot segment is another path, not an id.
    values: oddText.filter((v) => v !== '' && v !== '.' && v !== '..'),
    examples: TEXT_EXAMPLES,
    send: (target: OddTarget, value: unknown) => api(target, method, `memories/${segment(String(value))}${tail}`),
  }));
  return [...params, ...ids];
}

/** Every field of the page's selection bodies, and raw odd bodies. */
function bodyInputs(): OddInput[] {
  const fields: [string, string, Record<string, unknown>][] = [
    ['pins', 'ids', { ids: [CURSOR_ID], pinned: true }],
    ['pins', 'pinned', { ids: [CURSOR_ID], pinned: true }],
    ['forget', 'ids', { ids: [CURSOR_ID] }],
  ];
  const byField = fields.map(([route, field, valid]) => ({
    label: `POST /api/${route}: ${field}`,
    names: new RegExp(`\\b${field}\\b|no such memory`, 'i'),
    values: oddJson,
    examples: JSON_EXAMPLES,
    send: (target: OddTarget, value: unknown) => api(target, 'POST', route, JSON.stringify({ ...valid, [field]: value })),
  }));
  const raw = ['pins', 'forget', 'import'].map((route) => ({
    label: `POST /api/${route}: the body`,
    names: /body|file|ids|no such memory/i,
    values: fc.oneof(
      fc.constantFrom('', 'null', '[]', '{', '"x"', '1e999', '{"a":'.repeat(100_000), '['.repeat(100_000) + ']'.repeat(100_000)),
      oddJson.map((v) => JSON.stringify(v) ?? ''),
    ),
    examples: ['', '{"a":'.repeat(100_000)],
    send: (target: OddTarget, value: unknown) => api(target, 'POST', route, String(value)),
  }));
  return [...byField, ...raw];
}

/** A valid export file of one memory and one journal line, each call's own (the content differs per call). */
function exportFile(now: Date, nonce: string) {
  const at = new Date(now.getTime() - 60_000).toISOString();
  return {
    format: 'naaba-memories',
    version: 1,
    exportedAt: now.toISOString(),
    memories: [
      {
        id: '00000000-0000-4000-8000-0000000000aa',
        kind: 'fact',
        content: `An imported memory of the odd-values property, ${nonce}.`,
        pinned: false,
        createdAt: at,
        lastUsefulAt: at,
        recallCount: 0,
        restatements: 1,
        agent: 'odd',
        client: 'odd/1',
        origin: null,
        restatedBy: [{ agent: 'odd', client: 'odd/1', origin: null, at }],
        conflicts: [],
        supersededBy: null,
        supersededAt: null,
      },
    ],
    journal: [{ at, kind: 'fact', rule: 'ceiling', ageSeconds: 1, recallCount: 0 }],
  };
}

/** Where in a file each field sits, and the field names a refusal names. */
const IMPORT_FIELDS: [string, string][] = [
  ...['format', 'version', 'exportedAt', 'memories', 'journal'].map((f): [string, string] => ['', f]),
  ...[
    'id',
    'kind',
    'content',
    'pinned',
    'createdAt',
    'lastUsefulAt',
    'recallCount',
    'restatements',
    'agent',
    'client',
    'origin',
    'restatedBy',
    'conflicts',
    'supersededBy',
    'supersededAt',
  ].map((f): [string, string] => ['memories[0]', f]),
  ...['agent', 'client', 'origin', 'at'].map((f): [string, string] => ['memories[0].restatedBy[0]', f]),
  ...['at', 'kind', 'rule', 'ageSeconds', 'recallCount'].map((f): [string, string] => ['journal[0]', f]),
];

/** Sets one field of a file, at a path like `memories[0].restatedBy[0]`. */
function withField(file: Record<string, unknown>, at: string, field: string, value: unknown): Record<string, unknown> {
  let holder: Record<string, unknown> = file;
  for (const part of at.match(/\w+|\[\d+\]/g) ?? []) {
    const key = part.startsWith('[') ? Number(part.slice(1, -1)) : part;
    holder = (holder as Record<string | number, Record<string, unknown>>)[key] as Record<string, unknown>;
  }
  holder[field] = value;
  return file;
}

let nonces = 0;

/** Every field of an import file, sent to `/api/import`. */
function importInputs(): OddInput[] {
  return IMPORT_FIELDS.map(([at, field]) => ({
    label: `POST /api/import: ${at ? `${at}.` : ''}${field}`,
    names: new RegExp(`\\b${field}\\b`, 'i'),
    values: oddJson,
    examples: JSON_EXAMPLES,
    send: (target: OddTarget, value: unknown) => {
      const file = withField(exportFile(new Date(), `call ${nonces++}`), at, field, value);
      return api(target, 'POST', 'import', JSON.stringify(file));
    },
  }));
}

/** Every input the property covers. */
export const ODD_INPUTS: readonly OddInput[] = [...toolInputs(), ...routeInputs(), ...bodyInputs(), ...importInputs()];

/**
 * Sends `runs` odd values to one input and checks each answer: below 500, never an internal
 * error; a refusal names the field and leaves every row as it was. Returns how many were refused.
 */
export async function checkOddInput(target: OddTarget, input: OddInput, runs: number): Promise<number> {
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(input.values, async (value) => {
      const before = await stateOf(target.sql);
      const answer = await input.send(target, value);
      if (answer.status >= 500) throw new Error(`${input.label} answered ${answer.status}: ${answer.refusal}`);
      if (answer.refusal === undefined) return;
      refused += 1;
      if (/internal error/i.test(answer.refusal)) throw new Error(`${input.label}: ${answer.refusal}`);
      if (!answer.whole && !input.names.test(answer.refusal))
        throw new Error(`${input.label}: the refusal does not name the field: ${answer.refusal}`);
      if ((await stateOf(target.sql)) !== before) throw new Error(`${input.label}: refused, but rows changed`);
    }),
    { numRuns: runs, examples: input.examples.map((v) => [v] as [unknown]) },
  );
  return refused;
}
