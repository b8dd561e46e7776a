import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { environment, loadConfig } from '../../lambda/config/env.js';
import { PATIENT_CONNECT_MS } from '../support/budgets.js';
import { connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { checkOddInput, ODD_INPUTS, type OddTarget } from '../support/odd-values.js';
import { postgresForTests } from '../support/pg-server.js';

/**
 * Zero 5xx from any input on a real PostgreSQL (issue 52, decision 0148): the inputs and property
 * of test/e2e/odd-values.test.ts, through the local endpoint over a throwaway cluster. Without a
 * server this file says why in one line (a failure under NAABA_REQUIRE_POSTGRES=1).
 */
const RUNS = Number(environment().NAABA_ODD_RUNS ?? 6);

const server = await postgresForTests('odd values on real PostgreSQL (every tool, route, import field, cursor)');

if (server) {
  let sql: PgSqlClient;
  let endpoint: TestEndpoint;
  let target: OddTarget;

  beforeAll(async () => {
    sql = await PgSqlClient.connect({
      url: server.url,
      maxConnections: 4,
      statementTimeoutMs: 60_000,
      connectionTimeoutMs: PATIENT_CONNECT_MS,
    });
    await migrate(sql, { embeddingDimensions: loadConfig({}).embedder.dimensions });
    endpoint = await startTestEndpoint({ sql });
    const { token } = await endpoint.issueKey('odd-values');
    target = { url: endpoint.url, token, sql };
    const client = await connect(endpoint.mcpUrl, token);
    await client.callTool({
      name: 'remember',
      arguments: { content: 'A memory that odd input must leave alone.', kind: 'fact' },
    });
    await client.close();
  }, PATIENT_CONNECT_MS);
  afterAll(async () => {
    await endpoint?.close();
    await sql?.close();
    await server.stop();
  });

  test.each(ODD_INPUTS.map((input) => [input.label, input] as const))(
    'PostgreSQL, %s: never a 5xx; a refusal names the field and writes nothing',
    async (_label, input) => {
      await checkOddInput(target, input, RUNS);
    },
  );
}
