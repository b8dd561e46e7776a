import { jest } from '@jest/globals';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AuthorizerContext } from './events.js';
import { lambdaContext, mcpCall } from './events.js';
import { setEnvironment } from './process-env.js';
import { BedrockStub, bedrockError, DUMMY_CREDENTIALS, titanAnswer } from '../providers/support/bedrock-stub.js';
import type { Reply } from '../providers/support/scripted.js';
import { unitVector } from '../providers/support/vectors.js';
import { FailingJudge } from '../support/judges.js';

// Metrics are emitted only inside a Lambda container; these are the variables its runtime sets.
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-mcp',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  // This file reads the log lines too.
  NAABA_LOG_LEVEL: 'INFO',
});
const { handler } = await import('../../lambda/handlers/endpoint.js');
const { Container, installContainer } = await import('../../lambda/composition.js');
const { loadConfig } = await import('../../lambda/config/env.js');
const { makeEmbedder } = await import('../../lambda/providers.js');
const { freshDatabase } = await import('../support/database.js');

const SECRET = 'the vault code is 4417';

let bedrock: BedrockStub;
let close: () => Promise<void>;
let principal: AuthorizerContext;
beforeAll(async () => {
  bedrock = await BedrockStub.start();
  // The embedder of the stack (Bedrock Titan, a real SDK client) against the stand-in; a judge that is down.
  const config = loadConfig({
    NAABA_LOG_LEVEL: 'SILENT',
    NAABA_REGION: 'eu-central-1',
    NAABA_ALLOWED_HOSTS: '*',
    NAABA_EMBEDDER: 'bedrock',
    NAABA_BEDROCK_ENDPOINT: bedrock.url,
    AWS_REGION: 'eu-central-1',
    NAABA_EMBEDDING_DIMENSIONS: '256',
    NAABA_PROVIDER_MAX_ATTEMPTS: '1',
    // Calls to the stand-in that must succeed: a minute, not 5 s, however busy the machine.
    NAABA_EMBEDDER_TIMEOUT_MS: '60000',
    NAABA_EMBEDDER_BUDGET_MS: '120000',
  });
  const db = await freshDatabase(256);
  const embedder = await makeEmbedder(config, { credentials: DUMMY_CREDENTIALS });
  const container = new Container(config, { sql: db, embedder, judge: new FailingJudge() });
  installContainer(container);
  const key = await (await container.keys()).issue('metered', 'eu-central-1');
  principal = { userId: key.userId, region: key.region, agent: key.name, keyId: key.keyId };
  close = async () => {
    installContainer(undefined);
    await db.close();
  };
});
afterAll(async () => {
  await close();
  await bedrock.close();
  restoreEnvironment();
});

interface Emf {
  readonly _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  readonly [name: string]: unknown;
}

/** Everything the invocation printed: its EMF blobs (metric name → value) and its log lines. */
async function printed(act: () => Promise<APIGatewayProxyResult>) {
  const chunks: string[] = [];
  const keep = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  // Powertools writes ERROR lines to stderr, the rest (and EMF) to stdout.
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(keep),
    jest.spyOn(process.stderr, 'write').mockImplementation(keep),
  ];
  let result: APIGatewayProxyResult;
  try {
    result = await act();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  const lines = chunks.join('').split('\n').filter(Boolean);
  const emf = lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Emf);
  const metrics: Record<string, unknown> = {};
  for (const blob of emf) {
    for (const m of blob._aws.CloudWatchMetrics.flatMap((c) => c.Metrics)) metrics[m.Name] = blob[m.Name];
  }
  const logs = lines
    .filter((l) => l.startsWith('{') && !l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { result, metrics, emf, logs, text: lines.join('\n') };
}

const call = (name: string, args: Record<string, unknown>) =>
  handler(mcpCall('tools/call', { name, arguments: args }, principal), lambdaContext('naaba-mcp'));
const isError = (result: APIGatewayProxyResult) =>
  (JSON.parse(result.body) as { result: { isError?: boolean } }).result.isError === true;

const titan = titanAnswer(unitVector(256, 3));
const denied = bedrockError(403, 'AccessDeniedException', `not authorized to embed "${SECRET}"`);

test.each<[string, string, string, Record<string, unknown>, Reply[], boolean]>([
  ['remember, embedded', 'ok', 'remember', { content: 'The build uses esbuild.', kind: 'fact' }, [titan], false],
  ['recall, embedded', 'ok', 'recall', { query: 'which bundler' }, [titan], false],
  ['curation_state', 'ok', 'curation_state', {}, [], false],
  ['forget with both ids and all', 'bad_input', 'forget', { ids: ['00000000-0000-4000-8000-000000000000'], all: true }, [], true],
  ['recall with a limit its schema refuses (answered by the SDK)', 'bad_input', 'recall', { query: 'x', limit: 500 }, [], true],
  ['remember without content (answered by the SDK)', 'bad_input', 'remember', { kind: 'fact' }, [], true],
  ['remember, Bedrock 403', 'embedder_unavailable', 'remember', { content: SECRET, kind: 'fact' }, [denied], true],
  ['recall, Bedrock 403', 'embedder_unavailable', 'recall', { query: SECRET }, [denied], true],
  [
    'recall, Bedrock throttling',
    'embedder_unavailable',
    'recall',
    { query: 'x' },
    [bedrockError(429, 'ThrottlingException')],
    true,
  ],
])('%s: counted as tool_call_%s and per tool', async (_case, outcome, tool, args, replies, failed) => {
  bedrock.script.set(replies, bedrockError(500, 'no reply scripted'));

  const { result, metrics, emf } = await printed(() => call(tool, args));

  expect(isError(result)).toBe(failed);
  expect(result.statusCode).toBe(200);
  expect(metrics).toMatchObject({ [`tool_call_${outcome}`]: 1, [`${tool}_${outcome}`]: 1, http_2xx: 1 });
  const counted = Object.keys(metrics).filter((name) => name.startsWith('tool_call_'));
  expect(counted).toEqual([`tool_call_${outcome}`]);
  const blob = emf.find((b) => `tool_call_${outcome}` in b);
  expect(blob?._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'naaba', Dimensions: [['service']] });
  expect(blob?.service).toBe('naaba');
});

test('a Bedrock 403 is logged at ERROR by name, status and outcome, never with the provider message or the content', async () => {
  bedrock.script.set([denied]);

  const { logs, text } = await printed(() => call('remember', { content: SECRET, kind: 'fact' }));

  const failed = logs.find((l) => l.message === 'tool call failed');
  expect(failed).toMatchObject({
    level: 'ERROR',
    tool: 'remember',
    outcome: 'embedder_unavailable',
    error: { name: 'EmbedderError', causes: ['ProviderCallError', 'AccessDeniedException 403'] },
  });
  expect(logs.filter((l) => l.level === 'INFO' && l.message === 'tool call')).toEqual([]);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain('not authorized');
});

test('a remember that asked a judge which is down counts judge_asked and judge_unavailable, and still stores', async () => {
  bedrock.script.set([titanAnswer(unitVector(256, 5))]);
  await printed(() => call('remember', { content: 'Deploys go out on Tuesdays.', kind: 'fact' }));
  bedrock.script.set([titanAnswer(unitVector(256, 5))]);

  const { result, metrics } = await printed(() => call('remember', { content: 'We deploy every Tuesday.', kind: 'fact' }));

  expect(isError(result)).toBe(false);
  expect(metrics).toMatchObject({ judge_asked: 1, judge_unavailable: 1, tool_call_ok: 1, remember_ok: 1 });
});

test('a call that never reaches a tool counts no tool metric, and no judge', async () => {
  const { metrics } = await printed(() => handler(mcpCall('tools/list', {}, principal), lambdaContext('naaba-mcp')));

  expect(Object.keys(metrics).filter((n) => /^(tool_call|judge)_/.test(n))).toEqual([]);
  expect(metrics).toMatchObject({ http_2xx: 1 });
});
