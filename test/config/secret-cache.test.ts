import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CachedDatabaseSecret } from '../../lambda/config/secrets.js';

/**
 * The database secret's cache (decision 0092): a max age, a forced read at most every interval,
 * one call for concurrent reads, and a failed read past the max age keeping the value in use.
 */
function scripted(values: (string | Error)[]) {
  let calls = 0;
  const client = {
    send: async () => {
      const value = values[Math.min(calls++, values.length - 1)];
      if (value instanceof Error) throw value;
      return { SecretString: value };
    },
  } as unknown as SecretsManagerClient;
  return { client: async () => client, calls: () => calls };
}

test('kept for its max age, read again after; a forced read at most once per interval', async () => {
  let now = 0;
  const sm = scripted(['postgresql://a@h/db', 'postgresql://b@h/db', 'postgresql://c@h/db']);
  const secret = new CachedDatabaseSecret('s', sm.client, { maxAgeMs: 1_000, minForcedIntervalMs: 100 }, () => now);

  expect((await secret.get()).url).toBe('postgresql://a@h/db');
  now = 999;
  expect((await secret.get()).url).toBe('postgresql://a@h/db');
  expect(sm.calls()).toBe(1);
  expect((await secret.get(true)).url).toBe('postgresql://b@h/db');
  now = 1_050;
  expect((await secret.get(true)).url).toBe('postgresql://b@h/db');
  expect(sm.calls()).toBe(2);
  now = 2_100;
  expect((await secret.get()).url).toBe('postgresql://c@h/db');
});

test('concurrent reads share one call', async () => {
  const sm = scripted(['postgresql://a@h/db']);
  const secret = new CachedDatabaseSecret('s', sm.client);

  await Promise.all([secret.get(), secret.get(), secret.get(true)]);

  expect(sm.calls()).toBe(1);
});

test('a failed read past the max age keeps the value in use; a failed forced read fails', async () => {
  let now = 0;
  const sm = scripted(['postgresql://a@h/db', Object.assign(new Error('unreachable'), { name: 'TimeoutError' })]);
  const secret = new CachedDatabaseSecret('s', sm.client, { maxAgeMs: 1_000, minForcedIntervalMs: 100 }, () => now);
  await secret.get();
  now = 5_000;

  expect((await secret.get()).url).toBe('postgresql://a@h/db');
  await expect(secret.get(true)).rejects.toThrow('unreachable');
});
