import { jest } from '@jest/globals';
import { createSocket, type Socket } from 'node:dgram';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { mcpCall } from '../handlers/events.js';
import { BedrockStub, bedrockError } from '../providers/support/bedrock-stub.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { postgresForTests } from '../support/pg-server.js';
import { pollUntil } from '../support/poll.js';
import { BUNDLE_ROOT, buildLambdaBundle, invokeBundle, type LambdaBundle } from './lambda-bundle.js';
import { environmentOf, firstStack, functionId } from './support.js';

/**
 * The shipped MCP bundle, run as the Lambda runtime runs it (`require()` of index.js in a fresh
 * Node 24 process, with the stack's environment), against a Bedrock stand-in that refuses the
 * embedder with 403 AccessDeniedException and a throwaway PostgreSQL: the EMF lines it prints must
 * count the call as embedder_unavailable, and its X-Ray subsegments (sent to a UDP stand-in of
 * the daemon) must name Bedrock and SQL without a parameter or the content.
 */
const CONTENT = 'the safe behind the painting opens with 0815';

const server = await postgresForTests('shipped MCP bundle metrics');

/** A stand-in for the X-Ray daemon: every UDP datagram the SDK sends, as text. */
async function xrayDaemon(): Promise<{ socket: Socket; received: string[] }> {
  const socket = createSocket('udp4');
  const received: string[] = [];
  socket.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, received };
}

if (server) {
  // Bundling, a PostgreSQL server and the bundle in a child process: sized to the work on a busy machine.
  jest.setTimeout(HEAVY_STEP_MS);
  const url = server.url;
  let bundle: LambdaBundle;
  let bedrock: BedrockStub;
  const outDir = `${BUNDLE_ROOT}/metrics-${process.pid}`;
  beforeAll(async () => {
    [bundle, bedrock] = await Promise.all([buildLambdaBundle('mcp', { outDir }), BedrockStub.start()]);
    const db = await PgSqlClient.connect({ url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
    await migrate(db, { embeddingDimensions: 1024 });
    await db.close();
  });
  afterAll(async () => {
    await bedrock?.close();
    await server?.stop();
    rmSync(outDir, { recursive: true, force: true });
  });

  test('a Bedrock 403 through the shipped MCP bundle: a tool error, counted tool_call_embedder_unavailable (not ok), traced without content', async () => {
    const { stack, template } = firstStack();
    const env = environmentOf(template, functionId(template, /MCP endpoint/));
    const principal = {
      userId: '2b7e1516-28ae-4d2a-a6d2-abf7158809cf',
      region: env.NAABA_REGION ?? '',
      agent: 'e2e',
      keyId: 'k1',
    };
    const event = mcpCall('tools/call', { name: 'remember', arguments: { content: CONTENT, kind: 'fact' } }, principal);
    bedrock.script.set([], bedrockError(403, 'AccessDeniedException', 'User is not authorized to perform bedrock:InvokeModel'));
    const daemon = await xrayDaemon();
    const { result: answered, lines } = await invokeBundle(
      bundle,
      'naaba-mcp',
      {
        ...env,
        // As configured by the stack, with the stand-ins in place of the cluster secret and Bedrock.
        NAABA_DATABASE_SECRET_ID: '',
        NAABA_DATABASE_URL: url,
        NAABA_DB_ENGINE: 'postgres',
        NAABA_BEDROCK_ENDPOINT: bedrock.url,
        AWS_REGION: stack.region,
        AWS_ACCESS_KEY_ID: 'AKIDSTANDIN000000000',
        AWS_SECRET_ACCESS_KEY: 'stand-in-secret',
        // What the Lambda runtime sets for a function with active tracing.
        AWS_LAMBDA_FUNCTION_NAME: 'naaba-mcp',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        LAMBDA_TASK_ROOT: dirname(bundle.file),
        _HANDLER: 'index.handler',
        _X_AMZN_TRACE_ID: 'Root=1-6761c0de-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.socket.address() as AddressInfo).port}`,
      },
      event,
    );
    // The segments were sent before the bundle answered; read them as they come, not in a fixed 200 ms.
    const traced = (trace: string) => trace.includes('"name":"BedrockRuntime"') && /"name":"SQL [a-z-]+\/[a-z-]+"/.test(trace);
    const trace = await pollUntil(() => daemon.received.join('\n'), traced);
    daemon.socket.close();

    const result = answered as { statusCode: number; body: string };
    const answer = JSON.parse(result.body) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(result.statusCode).toBe(200);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]?.text).toMatch(/AccessDeniedException/);
    const emf = lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const counted = Object.fromEntries(
      emf.flatMap((blob) => Object.entries(blob).filter(([k]) => /^(tool_call|remember)_/.test(k))),
    );
    expect(counted).toEqual({ tool_call_embedder_unavailable: 1, remember_embedder_unavailable: 1 });
    expect(emf.some((blob) => blob.http_2xx === 1)).toBe(true);
    expect(lines.find((l) => l.includes('"tool call failed"'))).toMatch(/"level":"ERROR".*AccessDeniedException 403/);

    expect(trace).toContain('"name":"BedrockRuntime"');
    expect(trace).toMatch(/"name":"SQL [a-z-]+\/[a-z-]+"/);
    expect(`${lines.filter((l) => !l.startsWith('RESULT ')).join('\n')}${trace}`).not.toContain(CONTENT);
    expect(trace).not.toContain(principal.userId);
  });
}
