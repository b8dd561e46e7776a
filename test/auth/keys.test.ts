import { KeyError, KeyService } from '../../lambda/auth/keys.js';
import { hashToken } from '../../lambda/auth/token.js';
import type { ApiKey, KeyStore, NewApiKey } from '../../lambda/ports/key-store.js';
import { ManualClock } from '../support/clock.js';

/** An in-memory key store: the policy of issuing keys, without SQL. */
class MemoryKeyStore implements KeyStore {
  readonly keys: NewApiKey[] = [];
  constructor(private readonly databaseRegions?: string[]) {}
  async findByHash(hash: string): Promise<ApiKey | undefined> {
    return this.keys.find((k) => k.tokenSha256 === hash);
  }
  async findByAccessToken(): Promise<ApiKey | undefined> {
    return undefined;
  }
  async insert(key: NewApiKey): Promise<void> {
    this.keys.push(key);
  }
  async revoke(): Promise<boolean> {
    return false;
  }
  async list(): Promise<ApiKey[]> {
    return this.keys;
  }
  async userExists(userId: string, region: string): Promise<boolean> {
    return this.keys.some((k) => k.userId === userId && k.region === region);
  }
  async regions(): Promise<string[] | undefined> {
    return this.databaseRegions;
  }
}

test('a key is issued with a high-entropy prefixed token, of which only the SHA-256 is stored', async () => {
  const store = new MemoryKeyStore();
  const key = await new KeyService(store, new ManualClock()).issue('agent', 'eu-west-1');
  expect(key.token).toMatch(/^nb_[A-Za-z0-9_-]{43}$/);
  expect(store.keys[0]?.tokenSha256).toBe(hashToken(key.token));
  expect(JSON.stringify(store.keys)).not.toContain(key.token);
});

test('on a multi-region database, a key’s region must be one of its regions', async () => {
  const service = new KeyService(new MemoryKeyStore(['aws-eu-central-1', 'aws-us-east-1']), new ManualClock());
  await expect(service.issue('agent', 'eu-central-1')).rejects.toThrow(
    'region "eu-central-1" is not a region of the database; its regions are: aws-eu-central-1, aws-us-east-1',
  );
  await expect(service.issue('agent', 'aws-eu-central-1')).resolves.toMatchObject({ region: 'aws-eu-central-1' });
});

test('another key for an existing user must name a user of the same region', async () => {
  const store = new MemoryKeyStore();
  const service = new KeyService(store, new ManualClock());
  const first = await service.issue('planner', 'eu-west-1');
  await expect(service.issue('writer', 'eu-west-1', first.userId)).resolves.toMatchObject({ userId: first.userId });
  await expect(service.issue('writer', 'us-east-1', first.userId)).rejects.toThrow(KeyError);
  await expect(service.issue('writer', 'eu-west-1', 'not-a-uuid')).rejects.toThrow('is not a UUID');
  await expect(service.issue('bad name!', 'eu-west-1')).rejects.toThrow('key name');
});
