import { createHash, randomUUID } from 'node:crypto';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { localContext } from '../../lambda/dev/lambda-context.js';
import { OUTAGE_MESSAGE, OutageSqlClient } from '../auth/outage.js';
import { tokenEvent } from './events.js';
import { setEnvironment } from './process-env.js';
import { capturedOutput } from '../support/output.js';

// Inside a Lambda container (metrics on), logging at INFO: set before the handler's modules load.
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-authorizer',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  NAABA_LOG_LEVEL: 'INFO',
});
const { Container, installContainer } = await import('../../lambda/composition.js');
const { loadConfig } = await import('../../lambda/config/env.js');
const { freshDatabase } = await import('../support/database.js');
const { handler } = await import('../../lambda/handlers/authorizer.js');

const REGION = 'eu-central-1';
let db: PgliteSqlClient;
let sql: OutageSqlClient;
let key: IssuedKey;

beforeAll(async () => {
  const config = loadConfig({ NAABA_LOG_LEVEL: 'SILENT', NAABA_REGION: REGION });
  db = await freshDatabase(config.embedder.dimensions);
  sql = new OutageSqlClient(db);
  const container = new Container(config, { sql });
  installContainer(container);
  key = await (await container.keys()).issue('through an outage', REGION);
});
afterAll(async () => {
  installContainer(undefined);
  await db.close();
  restoreEnvironment();
});
afterEach(() => {
  sql.state = 'up';
});

/** Calls the handler as Lambda would, with `remainingMs` left before Lambda's own timeout. */
async function invoke(token: string, remainingMs = 10_000): Promise<{ outcome: unknown; output: string }> {
  const context = { ...localContext('naaba-authorizer', randomUUID()), getRemainingTimeInMillis: () => remainingMs };
  const { value, output } = await capturedOutput(() => handler(tokenEvent(`Bearer ${token}`), context));
  return { outcome: value, output };
}

const lines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const metricNames = (output: string) =>
  lines(output).flatMap((l) =>
    ((l._aws as { CloudWatchMetrics?: { Metrics: { Name: string }[] }[] } | undefined)?.CloudWatchMetrics ?? []).flatMap((m) =>
      m.Metrics.map((x) => x.Name),
    ),
  );

describe.each([
  ['down', 'ECONNREFUSED'],
  ['hung', undefined],
] as const)('database %s', (state, code) => {
  test('the invocation fails (not Unauthorized, not a Deny), counted as authorizer_failure, logged at ERROR by name and code', async () => {
    sql.state = state;

    // 1.2 s left: the lookup's deadline is 0.2 s, so a hung database ends before Lambda would kill it.
    const { outcome, output } = await invoke(key.token, 1_200);

    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).not.toBe('Unauthorized');
    expect(outcome).toMatchObject({ name: 'AuthorizerFailure', message: 'the key store could not be read' });
    expect(metricNames(output)).toContain('authorizer_failure');
    expect(metricNames(output)).not.toContain('authorization_unauthorized');
    const errors = lines(output).filter((l) => l.level === 'ERROR');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatchObject(code ? { name: 'Error', code } : { name: 'TimeoutError' });
  });
});

test('no line of a failed authorization carries the token, its hash or the error message', async () => {
  sql.state = 'down';

  const { output } = await invoke(key.token);

  const hash = createHash('sha256').update(key.token).digest('hex');
  for (const secret of [key.token, key.token.slice(3), hash, hash.toUpperCase(), OUTAGE_MESSAGE, 'sw0rdfish']) {
    expect(output).not.toContain(secret);
  }
});

test('a failure is not remembered as a refusal: when the database is back, the key is allowed at once', async () => {
  sql.state = 'down';
  await invoke(key.token);
  sql.state = 'up';

  const { outcome, output } = await invoke(key.token);

  expect(outcome).toMatchObject({ principalId: key.userId });
  expect(metricNames(output)).toEqual(['authorization_allow']);
});
