import { OpenAiEmbedder } from '../../lambda/adapters/openai/embedder.js';
import type { ProviderCallError } from '../../lambda/adapters/provider-call.js';
import { EmbedderError, EmbeddingDimensionError } from '../../lambda/memory/errors.js';
import { embeddingsAnswer, OpenAiStub, openAiError } from './support/openai-stub.js';
import { unitVector } from './support/vectors.js';

const POLICY = { timeoutMs: 2_000, maxAttempts: 3, budgetMs: 10_000, backoffBaseMs: 1, backoffCapMs: 5 };
const KEY = 'sk-stand-in-0123456789abcdef';
let stub: OpenAiStub;
let embedder: OpenAiEmbedder;

beforeAll(async () => {
  stub = await OpenAiStub.start();
  embedder = new OpenAiEmbedder(
    { baseUrl: stub.baseUrl, apiKey: KEY, fetch },
    { model: 'nomic-embed-text', dimensions: 64, policy: POLICY },
  );
});
afterAll(async () => stub.close());

async function failure(target = embedder): Promise<EmbedderError> {
  const error = await target.embed('the sky is blue').then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EmbedderError)) throw new Error(`expected an EmbedderError, got ${String(error)}`);
  return error;
}

test('success: POST {base}/embeddings with the bearer key, and the embedding back', async () => {
  stub.script.set([embeddingsAnswer(unitVector(64))]);

  const result = await embedder.embed('The sky is blue.');

  expect(result).toEqual(unitVector(64));
  const [request] = stub.script.received;
  expect(request?.path).toBe('/v1/embeddings');
  expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(stub.script.json(0)).toEqual({ model: 'nomic-embed-text', input: 'The sky is blue.' });
});

test('without a key, no authorization header is sent (Ollama, vLLM)', async () => {
  const keyless = new OpenAiEmbedder(
    { baseUrl: `${stub.baseUrl}/`, apiKey: undefined, fetch },
    { model: 'm', dimensions: 64, policy: POLICY },
  );
  stub.script.set([embeddingsAnswer(unitVector(64))]);

  await keyless.embed('x');

  expect(stub.script.received[0]?.path).toBe('/v1/embeddings');
  expect(stub.script.received[0]?.headers.authorization).toBeUndefined();
});

test('wrong dimension: a clear dimension error', async () => {
  stub.script.set([embeddingsAnswer(unitVector(768))]);

  const error = await failure();

  expect(error).toBeInstanceOf(EmbeddingDimensionError);
  expect(error.message).toMatch(/expected 64, got 768/);
});

test('throttling, then success: retried', async () => {
  stub.script.set([openAiError(429, 'Rate limit reached'), embeddingsAnswer(unitVector(64, 3))]);

  await expect(embedder.embed('x')).resolves.toEqual(unitVector(64, 3));
  expect(stub.script.received).toHaveLength(2);
});

test('5xx until the retries are exhausted: a retryable error after exactly maxAttempts calls', async () => {
  stub.script.set([], openAiError(502, 'bad gateway'));

  const error = await failure();

  expect(stub.script.received).toHaveLength(3);
  expect(error.retryable).toBe(true);
  expect(error.message).toMatch(/HTTP 502\) after 3 attempts/);
});

test('a refused key: not retried, and the key never appears in the error', async () => {
  stub.script.set([], openAiError(401, `Incorrect API key provided: ${KEY}`));

  const error = await failure();

  expect(stub.script.received).toHaveLength(1);
  const cause = error.cause as ProviderCallError;
  expect(cause.reason).toBe('credentials');
  expect(`${error.message} ${cause.message} ${cause.detail}`).not.toContain(KEY);
  expect(cause.detail).toMatch(/Incorrect API key provided/);
});

test('a hang past the timeout: a timeout error, not retried', async () => {
  stub.script.set([], { hang: true });

  const error = await failure();

  expect((error.cause as ProviderCallError).reason).toBe('timeout');
  expect(stub.script.received).toHaveLength(1);
});

test('an unreachable server: a network error after the retries', async () => {
  const closed = await OpenAiStub.start();
  const url = closed.baseUrl;
  await closed.close();
  const nowhere = new OpenAiEmbedder({ baseUrl: url, apiKey: undefined, fetch }, { model: 'm', dimensions: 64, policy: POLICY });

  const error = await failure(nowhere);

  expect((error.cause as ProviderCallError).reason).toBe('network');
  expect((error.cause as ProviderCallError).attempts).toBe(3);
});

test.each([
  ['a body that is not JSON', { status: 200, text: '<html>proxy error</html>' }],
  ['no data', { status: 200, json: { object: 'list' } }],
  [
    'two embeddings for one input',
    { status: 200, json: { data: [{ embedding: unitVector(64) }, { embedding: unitVector(64) }] } },
  ],
  ['a NaN-like string inside', { status: 200, json: { data: [{ embedding: [...unitVector(63), 'NaN'] }] } }],
])('malformed body (%s): an embedder error, not a dimension error', async (_, reply) => {
  stub.script.set([reply]);

  const error = await failure();

  expect(error).not.toBeInstanceOf(EmbeddingDimensionError);
  expect(error.retryable).toBe(false);
});
