import { jest } from '@jest/globals';
import { check } from '../../bin/cli/check.js';
import { chatAnswer, embeddingsAnswer, OpenAiStub, openAiError } from './support/openai-stub.js';
import { unitVector } from './support/vectors.js';

const KEY = 'sk-probe-test-key-123456';
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await OpenAiStub.start();
});
afterAll(async () => stub.close());

/** `naaba check --probe` with the providers given as flags (flags override the environment by name), and what it printed. */
async function probe(): Promise<{ ok: boolean; printed: string }> {
  const lines: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.join(' '));
  });
  try {
    const ok = await check(
      {
        NAABA_EMBEDDER: 'openai',
        NAABA_JUDGE: 'openai',
        NAABA_OPENAI_BASE_URL: stub.baseUrl,
        NAABA_OPENAI_API_KEY: KEY,
        NAABA_OPENAI_EMBEDDING_MODEL: 'embed-model',
        NAABA_OPENAI_JUDGE_MODEL: 'judge-model',
        NAABA_EMBEDDING_DIMENSIONS: '16',
        NAABA_PROVIDER_MAX_ATTEMPTS: '1',
      },
      { probe: true },
    );
    return { ok, printed: lines.join('\n') };
  } finally {
    log.mockRestore();
  }
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
