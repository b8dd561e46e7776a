import { ManualClock } from '../support/clock.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ManualOAuthFlow } from '../support/oauth.js';

/** Registrations are bounded per hour across the endpoint, and the bound holds when they race. */

const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
let endpoint: TestEndpoint;
let flow: ManualOAuthFlow;

beforeAll(async () => {
  endpoint = await startTestEndpoint({ clock, env: { NAABA_OAUTH_REGISTRATIONS_PER_HOUR: '5' } });
  flow = new ManualOAuthFlow(endpoint.url);
});
afterAll(() => endpoint.close());

test('at most the configured number per hour, even when twenty race; a later hour has room again', async () => {
  const metadata = { client_name: 'Racer', redirect_uris: ['http://127.0.0.1:9/cb'] };
  const answers = await Promise.all(Array.from({ length: 20 }, () => flow.register(metadata)));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  const refused = answers.find((a) => a.status === 429);
  expect(refused?.headers.get('retry-after')).toBe('60');
  expect(await refused?.json()).toMatchObject({ error: 'temporarily_unavailable' });
  const [rows] = await endpoint.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_clients');
  expect(rows?.n).toBe(5);

  clock.advance(3_601);
  expect((await flow.register(metadata)).status).toBe(201);
});
