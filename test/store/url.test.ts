import { environment } from '../../lambda/config/env.js';
import { storeSuite } from './conformance.js';
import { openUrl, redact } from './url-harness.js';

/**
 * The store conformance suite against any PostgreSQL-wire URL (PostgreSQL with pgvector, or a
 * CockroachDB v25.4+ cluster), given by `npm run test:store -- --url URL`. The database is migrated
 * with its engine's DDL first; each test empties the naaba tables, so use a scratch database.
 */
const url = environment().NAABA_TEST_DATABASE_URL;

if (url) {
  storeSuite(`URL ${redact(url)}`, 'sql', () => openUrl(url));
} else {
  console.log('store conformance over a URL: not run, no URL given (npm run test:store -- --url postgresql://…)');
  describe('store conformance over a URL (needs npm run test:store -- --url URL)', () => {
    test.todo('runs the whole conformance suite against a PostgreSQL or CockroachDB URL');
  });
}
