import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import { checkCurationModel } from '../model/curation-check.js';

/**
 * The reference model of the curation rules against the in-memory reference store: many random
 * sequences in milliseconds, with no database. The same check runs on PGlite (test/model/) and,
 * with `npm run test:model -- --url`, on PostgreSQL or CockroachDB.
 */
test('curation rules: 300 random sequences on the in-memory store match the reference model after every step', async () => {
  let current = inMemoryStores();
  // Each sequence starts from an empty store; the services are built per sequence over these ports.
  const stores: MemoryStores = {
    get curation() {
      return current.curation;
    },
    get page() {
      return current.page;
    },
    get transfer() {
      return current.transfer;
    },
    get maintenance() {
      return current.maintenance;
    },
  };
  await checkCurationModel({
    stores,
    reset: async () => {
      current = inMemoryStores();
    },
    region: 'eu-central-1',
    runs: 300,
    embeddingDimensions: 256,
  });
});
