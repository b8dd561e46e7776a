import { KnownKeys } from '../../lambda/auth/known-keys.js';

/**
 * The local server's set of live key hashes (decision 0106): a token missing from it waits for a
 * read that begins after it arrived, shared by every token missing meanwhile, one read per gap.
 */

function keysOver(hashes: string[], gapMs = 20) {
  const reads: number[] = [];
  const known = new KnownKeys(
    async () => {
      reads.push(reads.length);
      return [...hashes];
    },
    { gapMs, maxKeys: 3 },
  );
  return { known, reads };
}

test('a hundred unknown hashes at once share one read; a known one needs none after it', async () => {
  const { known, reads } = keysOver(['a']);
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => known.mayExist(`random ${i}`)));
  expect(new Set(answers)).toEqual(new Set([false]));
  expect(reads).toHaveLength(1);
  expect(await known.mayExist('a')).toBe(true);
  expect(reads).toHaveLength(1);
});

test('a key added after a read is found by the next one: a token never waits on a read begun before it arrived', async () => {
  const hashes = ['a'];
  const { known, reads } = keysOver(hashes);
  expect(await known.mayExist('b')).toBe(false);
  hashes.push('b');
  expect(await known.mayExist('b')).toBe(true);
  expect(reads).toHaveLength(2);
});

test('a read that fails proves nothing, and too many keys to hold prove nothing either', async () => {
  const failing = new KnownKeys(() => Promise.reject(new Error('database down')), { gapMs: 1, maxKeys: 10 });
  expect(await failing.mayExist('x')).toBe(true);
  const { known } = keysOver(['a', 'b', 'c', 'd']);
  expect(await known.mayExist('x')).toBe(true);
});
