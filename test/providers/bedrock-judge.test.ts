import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NovaJudge } from '../../lambda/adapters/bedrock/nova-judge.js';
import { JUDGE_SYSTEM_PROMPT } from '../../lambda/adapters/judge-protocol.js';
import { ProviderCallError } from '../../lambda/adapters/provider-call.js';
import { BedrockStub, bedrockError, converseAnswer, DUMMY_CREDENTIALS } from './support/bedrock-stub.js';
import { HOSTILE, NOT_VERDICTS, dataBlock } from './support/judge-cases.js';

interface ConverseBody {
  system: { text: string }[];
  messages: { role: string; content: { text: string }[] }[];
  inferenceConfig: { maxTokens: number; temperature: number };
}

let stub: BedrockStub;
let client: BedrockRuntimeClient;
let judge: NovaJudge;

beforeAll(async () => {
  stub = await BedrockStub.start();
  client = new BedrockRuntimeClient({ region: 'eu-west-1', endpoint: stub.url, credentials: DUMMY_CREDENTIALS, maxAttempts: 1 });
  judge = new NovaJudge(client, {
    modelId: 'eu.amazon.nova-micro-v1:0',
    policy: { timeoutMs: 2_000, maxAttempts: 3, budgetMs: 10_000, backoffBaseMs: 1, backoffCapMs: 5 },
  });
});
afterAll(async () => {
  client.destroy();
  await stub.close();
});

const userText = (index: number) => stub.script.json<ConverseBody>(index).messages[0]?.content[0]?.text ?? '';

test('success: a signed Converse call to the inference profile, memories as data, deterministic settings', async () => {
  stub.script.set([converseAnswer('contradicts')]);

  const outcome = await judge.compare('The office is in Paris.', 'The office is in Lyon.');

  expect(outcome).toBe('contradicts');
  const [request] = stub.script.received;
  expect(request?.path).toBe('/model/eu.amazon.nova-micro-v1%3A0/converse');
  expect(String(request?.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
  const body = stub.script.json<ConverseBody>(0);
  expect(body.system).toEqual([{ text: JUDGE_SYSTEM_PROMPT }]);
  expect(body.messages).toHaveLength(1);
  expect(body.inferenceConfig.temperature).toBe(0);
  expect(dataBlock(userText(0))).toEqual({ stored: 'The office is in Paris.', new: 'The office is in Lyon.' });
});

test.each(['same', 'different', 'contradicts', '  same\n'])('the verdict %j counts', async (answer) => {
  stub.script.set([converseAnswer(answer)]);

  await expect(judge.compare('a', 'b')).resolves.toBe(answer.trim());
});

test.each(NOT_VERDICTS)('an answer that is not a verdict (%j) is unavailable', async (answer) => {
  stub.script.set([converseAnswer(answer)]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

test('a verdict cut off by the token limit is unavailable', async () => {
  stub.script.set([converseAnswer('same', 'max_tokens')]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

test('content that contains the delimiters stays inside the data block and decodes to itself', async () => {
  stub.script.set([converseAnswer('different')]);

  const outcome = await judge.compare(HOSTILE.stored, HOSTILE.incoming);

  expect(outcome).toBe('different');
  const text = userText(0);
  expect(text.split('</memories>')).toHaveLength(2);
  expect(text.split('<memories>')).toHaveLength(2);
  expect(dataBlock(text)).toEqual({ stored: HOSTILE.stored, new: HOSTILE.incoming });
});

test('throttling, then success: retried', async () => {
  stub.script.set([bedrockError(429, 'ThrottlingException'), converseAnswer('same')]);

  await expect(judge.compare('a', 'b')).resolves.toBe('same');
  expect(stub.script.received).toHaveLength(2);
});

test('5xx until the retries are exhausted: unavailable after exactly maxAttempts calls', async () => {
  stub.script.set([], bedrockError(503, 'ServiceUnavailableException'));

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
  expect(stub.script.received).toHaveLength(3);
  const error = await judge.verdict('a', 'b').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderCallError);
  expect((error as ProviderCallError).message).toMatch(/after 3 attempts/);
});

test('a hang past the timeout: unavailable, and the reason is a timeout', async () => {
  stub.script.set([], { hang: true });

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
  const error = await judge.verdict('a', 'b').catch((e: unknown) => e);
  expect((error as ProviderCallError).reason).toBe('timeout');
});

test.each([
  ['a body that is not JSON', { status: 200, text: '{"output": {' }],
  ['no message', { status: 200, json: { output: {}, stopReason: 'end_turn' } }],
  [
    'two text blocks',
    {
      status: 200,
      json: {
        output: { message: { role: 'assistant', content: [{ text: 'different' }, { text: 'same' }] } },
        stopReason: 'end_turn',
      },
    },
  ],
])('malformed body (%s): unavailable', async (_, reply) => {
  stub.script.set([reply]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

test('access denied: unavailable, not retried', async () => {
  stub.script.set([], bedrockError(403, 'AccessDeniedException'));

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
  expect(stub.script.received).toHaveLength(1);
});
