import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import { CountingSqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { authorize } from '../../lambda/auth/authorize.js';
import { KeyService } from '../../lambda/auth/keys.js';
import { hashToken, newToken } from '../../lambda/auth/token.js';
import { UNKNOWN_TOKEN_LIMITS, UnknownTokenCache } from '../../lambda/auth/unknown-tokens.js';
import type { KeyStore } from '../../lambda/ports/key-store.js';
import { ManualClock } from '../support/clock.js';
import { freshDatabase, truncateAll } from '../support/database.js';

/**
 * The per-container cache of refused token hashes, over the real key store on PGlite: it saves
 * reads for replayed tokens, forgets within its TTL, keeps only refusals, and stays bounded.
 */

const REGION = 'eu-central-1';
const TTL_S = UNKNOWN_TOKEN_LIMITS.ttlMs / 1000;

let db: PgliteSqlClient;
let sql: CountingSqlClient;
let store: SqlKeyStore;
let clock: ManualClock;
let keys: KeyService;

beforeAll(async () => {
  db = await freshDatabase();
  sql = new CountingSqlClient(db);
  store = new SqlKeyStore(sql);
});
afterAll(async () => db.close());
beforeEach(async () => {
  await truncateAll(db);
  clock = new ManualClock();
  keys = new KeyService(store, clock);
});

/** Authorizes through a cache, returning the decision's effect and the reads it cost. */
async function attempt(token: string, cache: UnknownTokenCache): Promise<[string, number]> {
  const before = sql.roundTrips;
  const decision = await authorize(`Bearer ${token}`, REGION, store, cache);
  return [decision.effect, sql.roundTrips - before];
}

/** A key row that appears with a token already in a client's hands (a restore, an import). */
async function storeRowFor(token: string): Promise<void> {
  await store.insert({
    keyId: randomUUID(),
    tokenSha256: hashToken(token),
    name: 'restored',
    userId: randomUUID(),
    region: REGION,
    createdAt: clock.now(),
    revokedAt: null,
    clientId: null,
  });
}

test('a replayed unknown token costs one read per TTL, not one per request', async () => {
  const cache = new UnknownTokenCache(clock);
  const token = newToken();

  const first = await attempt(token, cache);
  const replays = await Promise.all(Array.from({ length: 50 }, () => attempt(token, cache)));
  clock.advance(TTL_S);
  const afterTtl = await attempt(token, cache);

  expect(first).toEqual(['unauthorized', 1]);
  expect(new Set(replays.map((r) => r.join(':')))).toEqual(new Set(['unauthorized:0']));
  expect(afterTtl).toEqual(['unauthorized', 1]);
});

test('a key whose row appears after its token was refused is allowed once the TTL has passed, never later', async () => {
  const cache = new UnknownTokenCache(clock);
  const token = newToken();
  await attempt(token, cache);
  await storeRowFor(token);

  clock.advance(TTL_S - 1);
  const justBefore = await attempt(token, cache);
  clock.advance(1);
  const atTtl = await attempt(token, cache);

  expect(justBefore).toEqual(['unauthorized', 0]);
  expect(atTtl).toEqual(['allow', 1]);
});

test('a hit does not extend an entry: a token replayed without pause is read again after the TTL', async () => {
  const cache = new UnknownTokenCache(clock);
  const token = newToken();
  await attempt(token, cache);

  const reads: number[] = [];
  for (let second = 1; second <= TTL_S; second += 1) {
    clock.advance(1);
    reads.push((await attempt(token, cache))[1]);
  }

  expect(reads).toEqual([...Array(TTL_S - 1).fill(0), 1]);
});

test('a freshly issued key works at once, and every allowed call is read from the database', async () => {
  const cache = new UnknownTokenCache(clock);

  const issued = await keys.issue('fresh', REGION);
  const calls = [await attempt(issued.token, cache), await attempt(issued.token, cache)];

  expect(calls).toEqual([
    ['allow', 1],
    ['allow', 1],
  ]);
  expect(cache.size).toBe(0);
});

test('revocation is seen on the next call: an allow is never cached, and the revoked hash then is', async () => {
  const cache = new UnknownTokenCache(clock);
  const issued = await keys.issue('soon revoked', REGION);
  await attempt(issued.token, cache);

  await keys.revoke(issued.keyId);
  const calls = [await attempt(issued.token, cache), await attempt(issued.token, cache)];

  expect(calls).toEqual([
    ['unauthorized', 1],
    ['unauthorized', 0],
  ]);
});

test("another region's key is not cached: its 403 is read each time, as API Gateway caches that deny itself", async () => {
  const cache = new UnknownTokenCache(clock);
  const abroad = await keys.issue('abroad', 'us-east-1');

  const calls = [await attempt(abroad.token, cache), await attempt(abroad.token, cache)];

  expect(calls).toEqual([
    ['wrong_region', 1],
    ['wrong_region', 1],
  ]);
});

test('a failed read is not taken for a refusal: once the store answers, the key is allowed', async () => {
  const cache = new UnknownTokenCache(clock);
  const issued = await keys.issue('through an outage', REGION);
  const failing: KeyStore = Object.assign(Object.create(store), {
    findByHash: () => Promise.reject(new Error('connection refused')),
  });

  await expect(authorize(`Bearer ${issued.token}`, REGION, failing, cache)).rejects.toThrow('connection refused');
  const after = await attempt(issued.token, cache);

  expect(after).toEqual(['allow', 1]);
  expect(cache.size).toBe(0);
});

test('malformed headers never reach the store or the cache', async () => {
  const cache = new UnknownTokenCache(clock);
  const before = sql.roundTrips;

  for (const header of ['', 'Bearer nb_short', `Basic ${'a'.repeat(20)}`]) await authorize(header, REGION, store, cache);

  expect([sql.roundTrips - before, cache.size]).toEqual([0, 0]);
});

describe('bounds', () => {
  test('never holds more than its maximum; the least recently used entry goes first', async () => {
    const cache = new UnknownTokenCache(clock, { ttlMs: 60_000, maxEntries: 3 });
    const [a, b, c, d] = [newToken(), newToken(), newToken(), newToken()];
    for (const token of [a, b, c]) await attempt(token ?? '', cache);

    const replayA = await attempt(a ?? '', cache);
    await attempt(d ?? '', cache);
    const sizeAfterD = cache.size;
    const replays = [await attempt(a ?? '', cache), await attempt(b ?? '', cache)];

    expect(replayA).toEqual(['unauthorized', 0]);
    expect(sizeAfterD).toBe(3);
    // b was the least recently used when d arrived: it went, a (just replayed) stayed.
    expect(replays).toEqual([
      ['unauthorized', 0],
      ['unauthorized', 1],
    ]);
  });

  test('a flood of distinct tokens leaves the cache at its bound', () => {
    const cache = new UnknownTokenCache(clock, { ttlMs: 10_000, maxEntries: 100 });

    for (let i = 0; i < 1_000; i += 1) cache.add(hashToken(newToken()));

    expect(cache.size).toBe(100);
  });

  test.each([
    ['a TTL of 0', { ttlMs: 0, maxEntries: 10 }],
    ['no room', { ttlMs: 10_000, maxEntries: 0 }],
  ])('%s turns the cache off', async (_name, limits) => {
    const cache = new UnknownTokenCache(clock, limits);
    const token = newToken();

    const calls = [await attempt(token, cache), await attempt(token, cache)];

    expect(calls).toEqual([
      ['unauthorized', 1],
      ['unauthorized', 1],
    ]);
  });
});

test("the shipped TTL is within the revocation delay of the committed cdk.json's authorizer cache (decision 0021)", () => {
  const cdk = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const authorizerCacheSeconds: number = cdk.context['naaba:api'].authorizerCacheSeconds;

  expect(UNKNOWN_TOKEN_LIMITS.ttlMs).toBeGreaterThan(0);
  expect(UNKNOWN_TOKEN_LIMITS.ttlMs).toBeLessThanOrEqual(authorizerCacheSeconds * 1000);
});
