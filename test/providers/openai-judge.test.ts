import { JUDGE_SYSTEM_PROMPT } from '../../lambda/adapters/judge-protocol.js';
import { OpenAiJudge } from '../../lambda/adapters/openai/judge.js';
import type { ProviderCallError } from '../../lambda/adapters/provider-call.js';
import { HOSTILE, NOT_VERDICTS, dataBlock } from './support/judge-cases.js';
import { chatAnswer, OpenAiStub, openAiError } from './support/openai-stub.js';

interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature: number;
}

let stub: OpenAiStub;
let judge: OpenAiJudge;

beforeAll(async () => {
  stub = await OpenAiStub.start();
  judge = new OpenAiJudge(
    { baseUrl: stub.baseUrl, apiKey: 'sk-stand-in-key-000000', fetch },
    { model: 'qwen2.5:3b', policy: { timeoutMs: 2_000, maxAttempts: 3, budgetMs: 10_000, backoffBaseMs: 1, backoffCapMs: 5 } },
  );
});
afterAll(async () => stub.close());

const userText = (index: number) => stub.script.json<ChatBody>(index).messages[1]?.content ?? '';

test('success: POST {base}/chat/completions with a system turn and the memories as data', async () => {
  stub.script.set([chatAnswer('same')]);

  await expect(judge.compare('The office is in Paris.', 'Our office is located in Paris.')).resolves.toBe('same');
  const body = stub.script.json<ChatBody>(0);
  expect(stub.script.received[0]?.path).toBe('/v1/chat/completions');
  expect(body.model).toBe('qwen2.5:3b');
  expect(body.temperature).toBe(0);
  expect(body.messages[0]).toEqual({ role: 'system', content: JUDGE_SYSTEM_PROMPT });
  expect(dataBlock(userText(0))).toEqual({ stored: 'The office is in Paris.', new: 'Our office is located in Paris.' });
});

test.each(NOT_VERDICTS)('an answer that is not a verdict (%j) is unavailable', async (answer) => {
  stub.script.set([chatAnswer(answer)]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

test('a verdict cut off by the token limit is unavailable', async () => {
  stub.script.set([chatAnswer('same', 'length')]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

test('content that contains the delimiters stays inside the data block and decodes to itself', async () => {
  stub.script.set([chatAnswer('contradicts')]);

  await expect(judge.compare(HOSTILE.stored, HOSTILE.incoming)).resolves.toBe('contradicts');
  const text = userText(0);
  expect(text.split('</memories>')).toHaveLength(2);
  expect(dataBlock(text)).toEqual({ stored: HOSTILE.stored, new: HOSTILE.incoming });
});

test('throttling, then success: retried', async () => {
  stub.script.set([openAiError(429, 'slow down'), chatAnswer('different')]);

  await expect(judge.compare('a', 'b')).resolves.toBe('different');
  expect(stub.script.received).toHaveLength(2);
});

test('5xx until the retries are exhausted: unavailable after exactly maxAttempts calls', async () => {
  stub.script.set([], openAiError(500, 'boom'));

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
  expect(stub.script.received).toHaveLength(3);
});

test('a hang past the timeout: unavailable, and the reason is a timeout', async () => {
  stub.script.set([], { hang: true });

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
  const error = await judge.verdict('a', 'b').catch((e: unknown) => e);
  expect((error as ProviderCallError).reason).toBe('timeout');
});

test.each([
  ['a body that is not JSON', { status: 200, text: 'same' }],
  ['no choices', { status: 200, json: { choices: [] } }],
  [
    'content null (a refusal)',
    { status: 200, json: { choices: [{ message: { content: null, refusal: 'no' }, finish_reason: 'stop' }] } },
  ],
  ['two choices', { status: 200, json: { choices: [chatChoice('same'), chatChoice('same')] } }],
])('malformed body (%s): unavailable', async (_, reply) => {
  stub.script.set([reply]);

  await expect(judge.compare('a', 'b')).resolves.toBe('unavailable');
});

function chatChoice(content: string) {
  return { message: { role: 'assistant', content }, finish_reason: 'stop' };
}
