import { UsageBucketsError, usageBuckets, usageIdentifier } from '../../lambda/auth/usage-identifier.js';

const buckets = { prefix: 'naaba-eu-central-1-usage-bucket-', count: 50 };

test('a key always lands in the same bucket, named by the stack prefix and three digits', () => {
  const keyId = '2f1c0c52-8a53-4b52-9d5e-6f4a3e4d5c21';

  const first = usageIdentifier(keyId, buckets);

  expect(first).toMatch(/^naaba-eu-central-1-usage-bucket-0[0-4]\d$/);
  expect(usageIdentifier(keyId, buckets)).toBe(first);
  expect(usageIdentifier(keyId, { ...buckets, count: 1 })).toBe('naaba-eu-central-1-usage-bucket-000');
});

test('different keys spread: 500 ids use at least 45 of 50 buckets', () => {
  const named = new Set(Array.from({ length: 500 }, (_, i) => usageIdentifier(`key-${i}`, buckets)));

  expect(named.size).toBeGreaterThanOrEqual(45);
});

test.each([
  [{}, undefined],
  [
    { NAABA_USAGE_KEY_PREFIX: 'p-', NAABA_USAGE_KEY_COUNT: '3' },
    { prefix: 'p-', count: 3 },
  ],
])('settings %j read as %j', (env, expected) => {
  expect(usageBuckets(env)).toEqual(expected);
});

test.each([
  { NAABA_USAGE_KEY_PREFIX: 'p-' },
  { NAABA_USAGE_KEY_COUNT: '3' },
  { NAABA_USAGE_KEY_PREFIX: 'p-', NAABA_USAGE_KEY_COUNT: '0' },
  { NAABA_USAGE_KEY_PREFIX: 'p-', NAABA_USAGE_KEY_COUNT: 'many' },
])('half or wrong settings %j are refused at load, not silently ignored', (env) => {
  expect(() => usageBuckets(env)).toThrow(UsageBucketsError);
});
