import { isExplaining } from '../../lambda/adapters/judge-protocol.js';
import { loadConfig } from '../../lambda/config/env.js';
import { EmbedderError } from '../../lambda/memory/errors.js';
import { makeEmbedder, makeJudge } from '../../lambda/providers.js';
import { BedrockStub, bedrockError, converseAnswer, DUMMY_CREDENTIALS, titanAnswer } from './support/bedrock-stub.js';
import { chatAnswer, embeddingsAnswer, OpenAiStub } from './support/openai-stub.js';
import { unitVector } from './support/vectors.js';

let bedrock: BedrockStub;
let openai: OpenAiStub;

beforeAll(async () => {
  [bedrock, openai] = await Promise.all([BedrockStub.start(), OpenAiStub.start()]);
});
afterAll(async () => {
  await Promise.all([bedrock.close(), openai.close()]);
});

const bedrockEnv = () => ({
  NAABA_EMBEDDER: 'bedrock',
  NAABA_JUDGE: 'bedrock',
  AWS_REGION: 'eu-central-1',
  NAABA_BEDROCK_ENDPOINT: bedrock.url,
  NAABA_EMBEDDING_DIMENSIONS: '512',
});

test('local configuration builds the offline embedder and the exact-only judge', async () => {
  const config = loadConfig({});

  expect((await makeEmbedder(config)).name).toBe('local-lexical-v2/256');
  await expect((await makeJudge(config)).compare('a', 'b')).resolves.toBe('different');
});

test('bedrock configuration reaches Titan V2 and the geography inference profile through the configured endpoint', async () => {
  const config = loadConfig(bedrockEnv());
  bedrock.script.set([titanAnswer(unitVector(512)), converseAnswer('same')]);

  const embedder = await makeEmbedder(config, { credentials: DUMMY_CREDENTIALS });
  const judge = await makeJudge(config, { credentials: DUMMY_CREDENTIALS });

  await expect(embedder.embed('x')).resolves.toHaveLength(512);
  await expect(judge.compare('a', 'b')).resolves.toBe('same');
  expect(bedrock.script.received.map((r) => r.path)).toEqual([
    '/model/amazon.titan-embed-text-v2%3A0/invoke',
    '/model/eu.amazon.nova-micro-v1%3A0/converse',
  ]);
  expect(bedrock.script.received.every((r) => String(r.headers.authorization).includes('/eu-central-1/bedrock/'))).toBe(true);
  expect(isExplaining(judge)).toBe(true);
});

test('the SDK does not retry on its own: NAABA_PROVIDER_MAX_ATTEMPTS is the only bound', async () => {
  const config = loadConfig({ ...bedrockEnv(), NAABA_PROVIDER_MAX_ATTEMPTS: '1' });
  bedrock.script.set([], bedrockError(500, 'InternalServerException'));

  await expect((await makeEmbedder(config, { credentials: DUMMY_CREDENTIALS })).embed('x')).rejects.toBeInstanceOf(EmbedderError);
  expect(bedrock.script.received).toHaveLength(1);
});

test('openai configuration reaches {base}/embeddings and {base}/chat/completions with the key', async () => {
  const config = loadConfig({
    NAABA_EMBEDDER: 'openai',
    NAABA_JUDGE: 'openai',
    NAABA_OPENAI_BASE_URL: openai.baseUrl,
    NAABA_OPENAI_API_KEY: 'sk-wiring-test-000000',
    NAABA_OPENAI_EMBEDDING_MODEL: 'text-embedding-3-small',
    NAABA_OPENAI_JUDGE_MODEL: 'gpt-4o-mini',
    NAABA_EMBEDDING_DIMENSIONS: '32',
  });
  openai.script.set([embeddingsAnswer(unitVector(32)), chatAnswer('different')]);

  await expect((await makeEmbedder(config)).embed('x')).resolves.toHaveLength(32);
  await expect((await makeJudge(config)).compare('a', 'b')).resolves.toBe('different');
  expect(openai.script.received.map((r) => [r.path, r.headers.authorization])).toEqual([
    ['/v1/embeddings', 'Bearer sk-wiring-test-000000'],
    ['/v1/chat/completions', 'Bearer sk-wiring-test-000000'],
  ]);
});
