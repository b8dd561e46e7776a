import { jest } from '@jest/globals';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { capturedOutput } from '../support/output.js';
import { postgresForTests } from '../support/pg-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { lambdaContext, mcpCall, proxyEvent } from './events.js';
import { setEnvironment } from './process-env.js';

/**
 * One outage, one answer (decision 0097): a warm MCP container whose database goes away answers
 * 503 with Retry-After, as a cold one does (test/handlers/cold-outage.test.ts), never 200 with a
 * tool error; counted `store_unavailable`, logged without the driver's message; the database back,
 * the same container serves. A real PostgreSQL behind a TCP hop the test cuts.
 */
const server = await postgresForTests('a warm MCP container losing its database');

if (server) {
  jest.setTimeout(HEAVY_STEP_MS);
  const restoreEnvironment = setEnvironment({
    AWS_LAMBDA_FUNCTION_NAME: 'naaba-mcp',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    NAABA_LOG_LEVEL: 'INFO',
  });
  const { Container, installContainer } = await import('../../lambda/composition.js');
  const { loadConfig } = await import('../../lambda/config/env.js');
  const { handler } = await import('../../lambda/handlers/endpoint.js');
  let proxy: TcpProxy;
  const principal = {
    userId: '7e3a6f2c-27a8-4d5c-9a59-2f4d3c1b0a11',
    region: 'eu-central-1',
    agent: 'warm',
    keyId: '3b9d2f4e-1c6a-4e8b-9f2d-6a7c5b4e3d21',
  };
  const containerOn = () => {
    const url = new URL(server.url);
    url.port = String(proxy.port);
    const config = loadConfig({
      NAABA_DATABASE_URL: url.toString(),
      NAABA_DB_ENGINE: 'postgres',
      NAABA_EMBEDDING_DIMENSIONS: '256',
      NAABA_REGION: 'eu-central-1',
      NAABA_ALLOWED_HOSTS: '*',
      NAABA_LOG_LEVEL: 'INFO',
    });
    return new Container(config);
  };
  const call = async (event = mcpCall('tools/call', { name: 'recall', arguments: { query: 'where is it' } }, principal)) => {
    const { value, output } = await capturedOutput(() => handler(event, lambdaContext('naaba-mcp')));
    return { ...(value as { statusCode: number; headers: Record<string, string>; body: string }), output };
  };

  beforeAll(async () => {
    const db = await PgSqlClient.connect({ url: server.url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
    await migrate(db, { embeddingDimensions: 256 });
    await db.close();
    proxy = await startTcpProxy(server.port);
  });
  afterAll(async () => {
    installContainer(undefined);
    await proxy?.close();
    await server.stop();
    restoreEnvironment();
  });

  test.each([
    ['a tool call', undefined],
    ['a page data call', proxyEvent({ method: 'GET', path: '/api/overview', authorizer: principal })],
  ])(
    '%s: warm, then the database gone: 503 with Retry-After as from a cold container; back, it serves again',
    async (_name, event) => {
      const warm = containerOn();
      installContainer(warm);
      try {
        expect((await call(event)).statusCode).toBe(200);

        await proxy.cut();
        const lost = await call(event);
        const cold = containerOn();
        installContainer(cold);
        const coldAnswer = await call(event);
        await cold.close();
        installContainer(warm);

        expect({ status: lost.statusCode, retryAfter: lost.headers['retry-after'], body: lost.body }).toEqual({
          status: 503,
          retryAfter: '5',
          body: '{"message":"the endpoint cannot reach its database right now; retry in a few seconds"}',
        });
        expect([coldAnswer.statusCode, coldAnswer.headers['retry-after'], coldAnswer.body]).toEqual([503, '5', lost.body]);
        expect(lost.output).toContain('"store_unavailable"');
        // Weather, not a defect (issue 48): no internal error counted, in total or under the version.
        expect(lost.output).not.toMatch(/tool_call_internal|recall_internal|overview_internal/);
        expect(lost.output).toContain('"message":"store unavailable: answered 503"');
        expect(lost.output).not.toContain('127.0.0.1');

        await proxy.restore();
        expect((await call(event)).statusCode).toBe(200);
      } finally {
        installContainer(undefined);
        await proxy.restore();
        await warm.close();
      }
    },
  );
}
