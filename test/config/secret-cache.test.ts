import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CachedDatabaseSecret, DEFAULT_SECRET_CACHE } from '../../lambda/config/secrets.js';
import { secretsManagerClient } from '../../lambda/providers.js';
import { secretsStandInEnvironment } from '../handlers/process-env.js';
import { type HangingSecrets, startHangingSecrets } from '../support/hanging-secrets.js';

/**
 * The database secret's cache (decision 0092): a max age, a forced read at most every interval,
 * one call for concurrent reads, and a failed read past the max age keeping the value in use; and
 * against a real HTTP stand-in with the functions' real SDK client, every read bounded in time.
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
  const secret = new CachedDatabaseSecret(
    's',
    sm.client,
    { ...DEFAULT_SECRET_CACHE, maxAgeMs: 1_000, minForcedIntervalMs: 100, retryAfterFailureMs: 0 },
    () => now,
  );

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

test('the bound counts the read, not loading the client: a slow build on a busy machine still reads', async () => {
  const sm = scripted(['postgresql://a@h/db']);
  const slowBuild = async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return sm.client();
  };
  const secret = new CachedDatabaseSecret('s', slowBuild, { ...DEFAULT_SECRET_CACHE, readTimeoutMs: 50 });

  expect((await secret.get()).url).toBe('postgresql://a@h/db');
  expect(sm.calls()).toBe(1);
});

test('a failed read past the max age keeps the value in use; a failed forced read fails', async () => {
  let now = 0;
  const sm = scripted(['postgresql://a@h/db', Object.assign(new Error('unreachable'), { name: 'TimeoutError' })]);
  const secret = new CachedDatabaseSecret(
    's',
    sm.client,
    { ...DEFAULT_SECRET_CACHE, maxAgeMs: 1_000, minForcedIntervalMs: 100, retryAfterFailureMs: 0 },
    () => now,
  );
  await secret.get();
  now = 5_000;

  expect((await secret.get()).url).toBe('postgresql://a@h/db');
  await expect(secret.get(true)).rejects.toThrow('unreachable');
});

describe('a Secrets Manager that hangs, then answers (issue 48): the real SDK client of the functions', () => {
  // The functions' own client factory, pointed at the stand-in the way the SDK is everywhere.
  let hanging: HangingSecrets;
  let restoreEnvironment: () => void;
  const URL_A = 'postgresql://a@h/db';
  const URL_B = 'postgresql://b@h/db';
  /**
   * A bound that tells "gave up" from "hung": the stand-in holds a hung read until the test
   * recovers it, so a read that returns at all while it hangs was ended by the cache. Three read
   * timeouts leave room for a loaded machine (one read took 5.8 s of a 3 s timeout beside another
   * test run) and still fail a read that waits on the stand-in.
   */
  const BOUND_MS = 3 * DEFAULT_SECRET_CACHE.readTimeoutMs + 1_500;
  /** No wait on Secrets Manager at all: under one read timeout. */
  const NO_WAIT_MS = DEFAULT_SECRET_CACHE.readTimeoutMs;

  beforeAll(async () => {
    hanging = await startHangingSecrets({ s: URL_A });
    restoreEnvironment = secretsStandInEnvironment(hanging.standIn.url, 'eu-central-1');
  });
  afterAll(async () => {
    await hanging.close();
    restoreEnvironment();
  });
  afterEach(() => {
    hanging.recover();
    hanging.secrets.s = URL_A;
  });

  const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; value: T | Error }> => {
    const started = performance.now();
    const value = await work().catch((error: unknown) => error as Error);
    return { ms: performance.now() - started, value };
  };

  test('cold: a hung read fails within its bound; the first read after Secrets Manager answers again succeeds', async () => {
    const secret = new CachedDatabaseSecret('s', secretsManagerClient);
    hanging.hang();

    const hung = await timed(() => secret.get());
    const alsoHung = await timed(() => secret.get());
    hanging.recover();
    const after = await timed(() => secret.get());

    expect(hung.value).toBeInstanceOf(Error);
    expect(hung.ms).toBeLessThan(BOUND_MS);
    expect(alsoHung.value).toBeInstanceOf(Error);
    expect(after.value).toEqual({ url: URL_A });
    expect(after.ms).toBeLessThan(NO_WAIT_MS);
  });

  test('warm: past its max age during a brownout the value in use is served, within the bound, then refreshed once it answers', async () => {
    let now = 0;
    const policy = { ...DEFAULT_SECRET_CACHE, maxAgeMs: 1_000, retryAfterFailureMs: 2_000 };
    const secret = new CachedDatabaseSecret('s', secretsManagerClient, policy, () => now);
    expect(await secret.get()).toEqual({ url: URL_A });
    hanging.hang();
    hanging.secrets.s = URL_B;
    now = 5_000;

    const stale = await timed(() => secret.get());
    // An attempt the SDK had already sent may reach the stand-in just after the cache gave up.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const readsAfterFailure = hanging.reads();
    now = 5_500;
    const withinInterval = await timed(() => secret.get());
    const readsWithinInterval = hanging.reads();
    hanging.recover();
    now = 8_000;
    const refreshed = await timed(() => secret.get());

    expect(stale.value).toEqual({ url: URL_A });
    expect(stale.ms).toBeLessThan(BOUND_MS);
    // After a failed refresh the value is served without another wait until the interval ends.
    expect(withinInterval.value).toEqual({ url: URL_A });
    expect(withinInterval.ms).toBeLessThan(NO_WAIT_MS);
    expect(readsWithinInterval).toBe(readsAfterFailure);
    expect(refreshed.value).toEqual({ url: URL_B });
  });

  test('a forced read (a refused login) that hangs fails within the bound, and the next one reads afresh', async () => {
    let now = 0;
    const secret = new CachedDatabaseSecret('s', secretsManagerClient, DEFAULT_SECRET_CACHE, () => now);
    await secret.get();
    hanging.hang();

    const forced = await timed(() => secret.get(true));
    hanging.recover();
    hanging.secrets.s = URL_B;
    now = DEFAULT_SECRET_CACHE.minForcedIntervalMs + 1;
    const again = await timed(() => secret.get(true));

    expect(forced.value).toBeInstanceOf(Error);
    expect(forced.ms).toBeLessThan(BOUND_MS);
    expect(again.value).toEqual({ url: URL_B });
  });
});
