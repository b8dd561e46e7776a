import { runCli } from '../support/cli.js';
import { chatAnswer, embeddingsAnswer, OpenAiStub, openAiError } from './support/openai-stub.js';
import { unitVector } from './support/vectors.js';

const KEY = 'sk-probe-test-key-123456';
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await OpenAiStub.start();
});
afterAll(async () => stub.close());

/** `naaba check --probe` with the providers in its environment, and what it printed. */
async function probe(): Promise<{ ok: boolean; printed: string }> {
  const result = await runCli(['check', '--probe'], {
    NAABA_EMBEDDER: 'openai',
    NAABA_JUDGE: 'openai',
    NAABA_OPENAI_BASE_URL: stub.baseUrl,
    NAABA_OPENAI_API_KEY: KEY,
    NAABA_OPENAI_EMBEDDING_MODEL: 'embed-model',
    NAABA_OPENAI_JUDGE_MODEL: 'judge-model',
    NAABA_EMBEDDING_DIMENSIONS: '16',
    NAABA_PROVIDER_MAX_ATTEMPTS: '1',
  });
  return { ok: result.code === 0, printed: result.stdout + result.stderr };
}

test('check --probe makes one real call to each provider and reports each as ok', async () => {
  stub.script.set([embeddingsAnswer(unitVector(16)), chatAnswer('contradicts')]);

  const { ok, printed } = await probe();

  expect(ok).toBe(true);
  expect(stub.script.received.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/chat/completions']);
  expect(printed).toMatch(/embedder +ok in \d+ ms \(16 dimensions from openai:embed-model\/16\)/);
  expect(printed).toMatch(/judge +ok in \d+ ms \(verdict "contradicts" from openai:judge-model\)/);
});

test('check --probe reports the reason a provider failed, and never prints the key', async () => {
  stub.script.set([embeddingsAnswer(unitVector(16)), openAiError(401, `Incorrect API key provided: ${KEY}`)]);

  const { ok, printed } = await probe();

  expect(ok).toBe(false);
  expect(printed).toMatch(/judge +FAILED after \d+ ms: .*found no usable credentials \(HTTP 401\)/);
  expect(printed).toMatch(/provider said: Incorrect API key provided: \[redacted\]/);
  expect(printed).not.toContain(KEY);
});
