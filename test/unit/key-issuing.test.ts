import { KeyError, KeyService } from '../../lambda/auth/keys.js';
import { hashToken } from '../../lambda/auth/token.js';
import { InMemoryKeyStore, KeyState } from '../../lambda/adapters/in-memory/key-stores.js';
import { ManualClock } from '../support/clock.js';

/** The reference key store (adapters/in-memory): the policy of issuing keys, without SQL. */
function memoryKeys(regions?: string[]) {
  const state = new KeyState();
  return { state, store: new InMemoryKeyStore(state, regions), stored: () => [...state.keys.values()] };
}

test('a key is issued with a high-entropy prefixed token, of which only the SHA-256 is stored', async () => {
  const { store, stored } = memoryKeys();
  const key = await new KeyService(store, new ManualClock()).issue('agent', 'eu-west-1');
  expect(key.token).toMatch(/^nb_[A-Za-z0-9_-]{43}$/);
  expect(stored()[0]?.tokenSha256).toBe(hashToken(key.token));
  expect(JSON.stringify(stored())).not.toContain(key.token);
});

test('on a multi-region database, a key’s region must be one of its regions', async () => {
  const service = new KeyService(memoryKeys(['aws-eu-central-1', 'aws-us-east-1']).store, new ManualClock());
  await expect(service.issue('agent', 'eu-central-1')).rejects.toThrow(
    'region "eu-central-1" is not a region of the database; its regions are: aws-eu-central-1, aws-us-east-1',
  );
  await expect(service.issue('agent', 'aws-eu-central-1')).resolves.toMatchObject({ region: 'aws-eu-central-1' });
});

test('another key for an existing user must name a user of the same region', async () => {
  const service = new KeyService(memoryKeys().store, new ManualClock());
  const first = await service.issue('planner', 'eu-west-1');
  await expect(service.issue('writer', 'eu-west-1', first.userId)).resolves.toMatchObject({ userId: first.userId });
  await expect(service.issue('writer', 'us-east-1', first.userId)).rejects.toThrow(KeyError);
  await expect(service.issue('writer', 'eu-west-1', 'not-a-uuid')).rejects.toThrow('is not a UUID');
  await expect(service.issue('bad name!', 'eu-west-1')).rejects.toThrow('key name');
});
