import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { environment } from '../../lambda/config/env.js';
import { freshDatabase, truncateAll } from '../support/database.js';
import { checkCurationModel } from './curation-check.js';

/**
 * The reference model of the curation rules against the real store on PGlite: NAABA_MODEL_RUNS
 * random sequences, a modest number in `npm test` (the in-memory reference store runs many more in
 * test/unit/model.test.ts); `npm run test:model -- --runs N` for a long run, `--seed S` to replay one.
 */
const env = environment();
const runs = Number(env.NAABA_MODEL_RUNS ?? 40);
const seed = env.NAABA_MODEL_SEED === undefined ? undefined : Number(env.NAABA_MODEL_SEED);

test(`curation rules: ${runs} random sequences on PGlite match the reference model after every step`, async () => {
  const db = await freshDatabase(256);
  try {
    await checkCurationModel({
      stores: sqlMemoryStores(db),
      sql: db,
      reset: () => truncateAll(db),
      region: 'eu-central-1',
      runs,
      seed,
      embeddingDimensions: 256,
    });
  } finally {
    await db.close();
  }
}, 900_000);
