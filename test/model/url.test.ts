import { environment } from '../../lambda/config/env.js';
import { openUrl, redact } from '../store/url-harness.js';
import { DIMENSIONS } from '../support/vectors.js';
import { checkCurationModel } from './curation-check.js';

/** The curation model against the database `npm run test:model -- --url URL` names; says why when there is none. */
const env = environment();
const url = env.NAABA_MODEL_URL;
const runs = Number(env.NAABA_MODEL_RUNS ?? 200);
const seed = env.NAABA_MODEL_SEED === undefined ? undefined : Number(env.NAABA_MODEL_SEED);

if (!url) {
  test.todo('curation model over a URL: not run, no URL given (npm run test:model -- --url postgresql://…)');
  console.log('curation model over a URL: not run, no URL given (npm run test:model -- --url postgresql://…)');
} else {
  test(`curation rules: ${runs} random sequences on ${redact(url)} match the reference model`, async () => {
    const harness = await openUrl(url);
    try {
      await checkCurationModel({
        stores: harness.stores,
        sql: harness.sql,
        reset: harness.reset,
        region: 'eu-central-1',
        runs,
        seed,
        embeddingDimensions: DIMENSIONS,
      });
    } finally {
      await harness.close();
    }
  }, 3_600_000);
}
