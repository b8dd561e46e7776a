import { jest } from '@jest/globals';
import { DEFAULT_SECRET_CACHE } from '../../lambda/config/secrets.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { type HangingSecrets, startHangingSecrets } from '../support/hanging-secrets.js';
import { capturedOutput } from '../support/output.js';
import { postgresForTests } from '../support/pg-server.js';
import { lambdaContext, mcpCall, tokenEvent } from './events.js';
import { migrateAsOwner, secretsStandInEnvironment } from './process-env.js';

/**
 * A hiccup never outlives its cause (issue 48, item 2): cold authorizer and MCP containers read their
 * database secret through the real SDK client from a Secrets Manager stand-in that hangs, then
 * answers. While it hangs each call ends within the function's deadline — the authorizer with its
 * chosen failure (API Gateway's 503), the MCP function with 503 and Retry-After, never a failed
 * invocation (API Gateway's 502) — and the first call after it answers again succeeds on the same
 * containers, without a recycle. A real PostgreSQL behind.
 */
const server = await postgresForTests('a Secrets Manager hiccup on cold containers');
const SECRET = 'naaba/test/database';
const REGION = 'eu-central-1';
/** The authorizer's Lambda timeout (lib/region-stack.ts) and the MCP function's, less what the runtime needs. */
const AUTHORIZER_DEADLINE_MS = 10_000;
const MCP_DEADLINE_MS = 25_000;

if (server) {
  jest.setTimeout(HEAVY_STEP_MS);
  let hanging: HangingSecrets;
  let restoreEnvironment: () => void;

  beforeAll(async () => {
    hanging = await startHangingSecrets({ [SECRET]: server.url });
    restoreEnvironment = secretsStandInEnvironment(hanging.standIn.url, REGION, {
      NAABA_LOG_LEVEL: 'WARN',
    });
    await migrateAsOwner(server.url);
  });
  afterAll(async () => {
    await hanging?.close();
    restoreEnvironment?.();
    await server.stop();
  });

  const timed = async <T>(work: () => Promise<T>) => {
    const started = performance.now();
    const value = await capturedOutput(() => work().catch((error: unknown) => error as Error));
    return { ms: performance.now() - started, value: value.value, output: value.output };
  };

  test('cold containers while Secrets Manager hangs: a bounded failure each; after it answers, the first calls succeed', async () => {
    const { Container, installContainer } = await import('../../lambda/composition.js');
    const { loadConfig } = await import('../../lambda/config/env.js');
    const config = loadConfig({
      NAABA_DATABASE_SECRET_ID: SECRET,
      NAABA_DB_ENGINE: 'postgres',
      NAABA_EMBEDDING_DIMENSIONS: '256',
      NAABA_REGION: REGION,
      NAABA_ALLOWED_HOSTS: '*',
      NAABA_LOG_LEVEL: 'WARN',
    });
    const operator = new Container(
      loadConfig({ NAABA_DATABASE_URL: server.url, NAABA_REGION: REGION, NAABA_LOG_LEVEL: 'SILENT' }),
    );
    const key = await (await operator.keys()).issue('hiccup', REGION);
    await operator.close();
    const principal = { userId: key.userId, region: REGION, agent: key.name, keyId: key.keyId };
    const container = new Container(config);
    installContainer(container);
    const [{ handler: authorize }, { handler: mcp }] = await Promise.all([
      import('../../lambda/handlers/authorizer.js'),
      import('../../lambda/handlers/endpoint.js'),
    ]);
    const authorizerCall = () => authorize(tokenEvent(`Bearer ${key.token}`), lambdaContext('naaba-authorizer'));
    const recall = () =>
      mcp(
        mcpCall('tools/call', { name: 'recall', arguments: { query: 'anything' } }, principal),
        lambdaContext('naaba-mcp'),
      ) as Promise<{
        statusCode: number;
        headers?: Record<string, string>;
        body: string;
      }>;
    try {
      hanging.hang();
      const refused = await timed(authorizerCall);
      const unavailable = await timed(recall);
      const refusedAgain = await timed(authorizerCall);
      hanging.recover();
      const allowed = await timed(authorizerCall);
      const served = await timed(recall);

      expect(refused.value).toMatchObject({ name: 'AuthorizerFailure' });
      expect(refused.ms).toBeLessThan(AUTHORIZER_DEADLINE_MS - 1_000);
      // Under three read timeouts: bounded by the cache, with room for a loaded machine (secret-cache.test.ts).
      expect(refusedAgain.ms).toBeLessThan(3 * DEFAULT_SECRET_CACHE.readTimeoutMs + 1_500);
      expect(unavailable.value).toMatchObject({ statusCode: 503 });
      const answer = unavailable.value as { headers?: Record<string, string> };
      expect(Object.entries(answer.headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1]).toBe('5');
      expect(unavailable.ms).toBeLessThan(MCP_DEADLINE_MS - 10_000);
      expect(allowed.value).toMatchObject({ policyDocument: { Statement: [{ Effect: 'Allow' }] } });
      expect(served.value).toMatchObject({ statusCode: 200 });
      expect(`${refused.output}${unavailable.output}`).not.toContain(key.token);
    } finally {
      installContainer(undefined);
      await container.close();
    }
  });
}
