import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { EmbeddingInputError, TitanEmbedder } from '../../lambda/adapters/bedrock/titan-embedder.js';
import type { ProviderCallError } from '../../lambda/adapters/provider-call.js';
import { EmbedderError, EmbeddingDimensionError } from '../../lambda/memory/errors.js';
import { BedrockStub, bedrockError, DUMMY_CREDENTIALS, titanAnswer } from './support/bedrock-stub.js';
import { unitVector } from './support/vectors.js';

const MODEL = 'amazon.titan-embed-text-v2:0';
let stub: BedrockStub;
let client: BedrockRuntimeClient;
let embedder: TitanEmbedder;

beforeAll(async () => {
  stub = await BedrockStub.start();
  client = new BedrockRuntimeClient({ region: 'eu-west-1', endpoint: stub.url, credentials: DUMMY_CREDENTIALS, maxAttempts: 1 });
  embedder = new TitanEmbedder(client, {
    modelId: MODEL,
    dimensions: 256,
    // 2 s per attempt: the first call also loads and signs with the SDK, which on a busy shared
    // machine took over 300 ms; only the hang below waits for it.
    policy: { timeoutMs: 2_000, maxAttempts: 3, budgetMs: 10_000, backoffBaseMs: 1, backoffCapMs: 5 },
  });
});
afterAll(async () => {
  client.destroy();
  await stub.close();
});

/** The error an embed call rejects with. */
async function failure(text = 'the sky is blue'): Promise<EmbedderError> {
  const error = await embedder.embed(text).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EmbedderError)) throw new Error(`expected an EmbedderError, got ${String(error)}`);
  return error;
}

test('success: a signed InvokeModel with Titan V2 parameters, and its embedding back', async () => {
  const vector = unitVector(256);
  stub.script.set([titanAnswer(vector)]);

  const result = await embedder.embed('The sky is blue.');

  expect(result).toEqual(vector);
  const [request] = stub.script.received;
  expect(request?.method).toBe('POST');
  expect(request?.path).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
  expect(String(request?.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDSTANDIN000000000\//);
  expect(stub.script.json(0)).toEqual({ inputText: 'The sky is blue.', dimensions: 256, normalize: true });
});

test('wrong dimension: a clear dimension error', async () => {
  stub.script.set([titanAnswer(unitVector(255))]);

  const error = await failure();

  expect(error).toBeInstanceOf(EmbeddingDimensionError);
  expect(error.message).toMatch(/expected 256, got 255/);
});

test('throttling, then success: retried', async () => {
  stub.script.set([bedrockError(429, 'ThrottlingException'), titanAnswer(unitVector(256, 2))]);

  const result = await embedder.embed('retry me');

  expect(result).toEqual(unitVector(256, 2));
  expect(stub.script.received).toHaveLength(2);
});

test('5xx until the retries are exhausted: a retryable error after exactly maxAttempts calls', async () => {
  stub.script.set([], bedrockError(500, 'InternalServerException'));

  const error = await failure();

  expect(stub.script.received).toHaveLength(3);
  expect(error.retryable).toBe(true);
  expect(error.message).toMatch(/InternalServerException, HTTP 500\) after 3 attempts/);
});

test('a refused request (validation) is not retried', async () => {
  stub.script.set([], bedrockError(400, 'ValidationException', 'Malformed input request'));

  const error = await failure();

  expect(stub.script.received).toHaveLength(1);
  expect(error.retryable).toBe(false);
  expect((error.cause as ProviderCallError).detail).toBe('Malformed input request');
});

test('a hang past the timeout: a timeout error, not retried', async () => {
  stub.script.set([], { hang: true });

  const error = await failure();

  expect((error.cause as ProviderCallError).reason).toBe('timeout');
  expect(error.message).toMatch(/timed out/);
  expect(stub.script.received).toHaveLength(1);
});

test.each([
  ['a body that is not JSON', { status: 200, text: '{"embedding": [0.1,' }],
  ['no embedding field', { status: 200, json: { vector: unitVector(256) } }],
  ['a non-number inside the embedding', { status: 200, json: { embedding: [...unitVector(255), 'x'] } }],
])('malformed body (%s): an embedder error, nothing returned', async (_, reply) => {
  stub.script.set([reply]);

  const error = await failure();

  expect(error).not.toBeInstanceOf(EmbeddingDimensionError);
  expect(error.message).toMatch(/Titan answered/);
});

test.each([
  ['over 50,000 characters', 'a'.repeat(50_001)],
  ['more words than 8,192 tokens', 'word '.repeat(8193)],
  ['blank text', '   '],
])('input Titan refuses (%s) is refused before any call', async (_, text) => {
  stub.script.set([titanAnswer(unitVector(256))]);

  const error = await failure(text);

  expect(error).toBeInstanceOf(EmbeddingInputError);
  expect(stub.script.received).toHaveLength(0);
});

test('a dimension Titan does not offer is refused at construction', () => {
  expect(() => new TitanEmbedder(client, { modelId: MODEL, dimensions: 300, policy: embedderPolicy() })).toThrow(
    /256, 512, 1024/,
  );
});

function embedderPolicy() {
  return { timeoutMs: 1000, maxAttempts: 1, budgetMs: 1000 };
}
