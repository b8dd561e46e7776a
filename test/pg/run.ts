// `npm run test:pg -- [--url URL] [--rounds N]`: a real multi-connection server in the test suite.
import { parseFlags, runJest } from '../support/jest-run.js';

const USAGE = `usage: npm run test:pg -- [--url URL] [--rounds N]

Starts a throwaway PostgreSQL cluster on loopback (initdb in a temporary folder; PostgreSQL 15+
with pgvector installed, see ../shared/vendor/README.md), runs the store conformance suite and the
contention rounds against it over 10 connections, prints rounds, successes and violations, and
stops it. Fails when no server can be started.
--url: the same against an existing PostgreSQL-wire database instead (PostgreSQL + pgvector, or a
CockroachDB v25.4+ cluster with regions eu-central-1 and us-east-1); every test empties the naaba
tables, so use a scratch database.
--rounds: rounds per contention scenario (default 20).`;

const options = parseFlags(process.argv.slice(2), ['url', 'rounds']);
if (typeof options === 'string' || !/^\d+$/.test(options.rounds ?? '20') || Number(options.rounds ?? 20) < 1) {
  console.error(`${typeof options === 'string' ? options : '--rounds must be a positive whole number'}\n\n${USAGE}`);
  process.exit(2);
}
runJest('test/pg/postgres.test.ts', {
  NAABA_REQUIRE_POSTGRES: '1',
  NAABA_CONTENTION_URL: options.url,
  NAABA_CONTENTION_ROUNDS: options.rounds ?? '20',
  NAABA_CROSS_USER_RECALLS: '10000',
});
