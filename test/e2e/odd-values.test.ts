import { environment } from '../../lambda/config/env.js';
import { checkOddInput, ODD_INPUTS, type OddTarget, stateOf } from '../support/odd-values.js';
import { connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * Zero 5xx from any input on PGlite (issue 52, decision 0148): odd values for every tool argument,
 * `/api/*` query parameter, path id, body and import field, and cursor. NAABA_ODD_RUNS sets the
 * values per input (default 6, with the examples every input always tries: under a minute here); the same inputs run on PostgreSQL in
 * test/pg/odd-values.test.ts.
 */
const RUNS = Number(environment().NAABA_ODD_RUNS ?? 6);

let endpoint: TestEndpoint;
let target: OddTarget;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  const { token } = await endpoint.issueKey('odd-values');
  target = { url: endpoint.url, token, sql: endpoint.sql };
  const client = await connect(endpoint.mcpUrl, token);
  await client.callTool({ name: 'remember', arguments: { content: 'A memory that odd input must leave alone.', kind: 'fact' } });
  await client.close();
});
afterAll(async () => endpoint.close());

test.each(ODD_INPUTS.map((input) => [input.label, input] as const))(
  '%s: never a 5xx; a refusal names the field and writes nothing',
  async (_label, input) => {
    await checkOddInput(target, input, RUNS);
  },
);

test('an empty export round-trips: export, import, the same state', async () => {
  const { token } = await endpoint.issueKey('new-account');
  const get = async (path: string) =>
    (await (await fetch(`${endpoint.url}/api/${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<
      string,
      unknown
    >;
  const before = await stateOf(endpoint.sql);
  const file = {
    format: 'naaba-memories',
    version: 1,
    exportedAt: new Date().toISOString(),
    memories: (await get('export/memories')).memories,
    journal: (await get('export/journal')).lines,
  };
  expect(file).toMatchObject({ memories: [], journal: [] });

  const response = await fetch(`${endpoint.url}/api/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(file),
  });

  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    imported: { memories: 0, written: 0, alreadyPresent: 0, expired: 0, links: 0, journalLines: 0, steps: 0, complete: true },
  });
  expect(await stateOf(endpoint.sql)).toBe(before);
  expect(await get('export/memories')).toEqual({ memories: [], nextCursor: null });
});
