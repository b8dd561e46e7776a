// `npm run test:store -- [--url URL] [--regions PRIMARY,OTHER…]`: the store conformance suite.
import { parseFlags, runJest } from '../support/jest-run.js';

const USAGE = `usage: npm run test:store -- [--url URL] [--regions PRIMARY,OTHER…]

Without --url: the suite on PGlite in-process, and a smoke test of PGlite over a socket (the
URL-bound tests print one line saying they did not run). The same suite on the in-memory
reference store is part of "npm run test:unit"; on PostgreSQL, of "npm run test:pg".
With --url: the whole suite against that PostgreSQL-wire database (PostgreSQL + pgvector, or
CockroachDB v25.4+), migrated first with the engine's DDL. Every test empties the naaba
tables: use a scratch database. On CockroachDB the suite writes rows homed in eu-central-1
and us-east-1, so both must be cluster regions; --regions (or NAABA_DB_REGIONS) names the
database regions to set up, primary first (default eu-central-1,us-east-1).`;

const options = parseFlags(process.argv.slice(2), ['url', 'regions']);
if (typeof options === 'string') {
  console.error(`${options}\n\n${USAGE}`);
  process.exit(2);
}
if (options.url) console.log('store conformance suite against the given URL (the database is migrated, then emptied per test)');
runJest(options.url ? 'test/store/url.test.ts' : 'test/store/', {
  NAABA_TEST_DATABASE_URL: options.url,
  NAABA_DB_REGIONS: options.regions,
});
