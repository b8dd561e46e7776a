import { jest } from '@jest/globals';
import { SentenceEmbedder } from '../../lambda/adapters/local/sentence-embedder.js';
import { loadConfig } from '../../lambda/config/env.js';
import { makeEmbedder } from '../../lambda/providers.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';

// The real model, loaded from its package: a few hundred milliseconds, more on a busy machine.
jest.setTimeout(HEAVY_STEP_MS);

const cosine = (a: number[], b: number[]) => 1 - a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

test('NAABA_EMBEDDER=sentence builds the sentence encoder: 512 dimensions, unit vectors, the same text the same vector', async () => {
  const embedder = await makeEmbedder(loadConfig({ NAABA_EMBEDDER: 'sentence' }));
  expect(embedder.name).toBe('use-lite-en/512');
  expect(embedder.dimensions).toBe(512);
  expect(embedder.unrelatedBeyond).toBeGreaterThan(0);
  const a = await embedder.embed('Awa runs the bakery in Koudougou.');
  expect(a).toHaveLength(512);
  expect(Math.hypot(...a)).toBeCloseTo(1, 5);
  expect(await embedder.embed('Awa runs the bakery in Koudougou.')).toEqual(a);
  // Text without words still gets a direction.
  expect(Math.hypot(...(await embedder.embed('?!')))).toBeCloseTo(1, 5);
});

test('paraphrases sharing no content word lie nearer than an unrelated sentence (what the lexical embedder cannot do)', async () => {
  const embedder = new SentenceEmbedder();
  const [memory, paraphrase, unrelated] = await Promise.all(
    [
      'My dog loves running on the beach.',
      'The puppy enjoys sprinting along the shore.',
      'The quarterly tax return is due in April.',
    ].map((t) => embedder.embed(t)),
  );
  if (!memory || !paraphrase || !unrelated) throw new Error('missing vectors');
  expect(cosine(memory, paraphrase)).toBeLessThan(cosine(memory, unrelated) - 0.1);
});

test('another dimension for the sentence encoder is a configuration error, said before anything runs', () => {
  expect(() => loadConfig({ NAABA_EMBEDDER: 'sentence', NAABA_EMBEDDING_DIMENSIONS: '256' })).toThrow(
    'NAABA_EMBEDDING_DIMENSIONS=256: the sentence encoder makes 512',
  );
  expect(loadConfig({ NAABA_EMBEDDER: 'sentence' }).embedder).toEqual({ provider: 'sentence', dimensions: 512 });
});

test('concurrent calls share the one model and give each text the vector it gets alone', async () => {
  const embedder = new SentenceEmbedder();
  const texts = Array.from({ length: 12 }, (_, i) => `note ${i} about ${['dogs', 'trains', 'taxes'][i % 3]}`);
  const alone: number[][] = [];
  for (const text of texts) alone.push(await embedder.embed(text));
  const together = await Promise.all(texts.map((text) => new SentenceEmbedder().embed(text)));
  expect(together).toEqual(alone);
  expect(new Set(alone.map((v) => v.join(','))).size).toBe(texts.length);
});
