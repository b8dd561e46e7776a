// `npm run test:store -- [--url URL] [--regions PRIMARY,OTHER…]`: the store conformance suite.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { environment } from '../../lambda/config/env.js';

const USAGE = `usage: npm run test:store -- [--url URL] [--regions PRIMARY,OTHER…]

Without --url: the suite on PGlite in-process and PGlite over a socket (the URL-bound tests
print one line saying they did not run).
With --url: the whole suite against that PostgreSQL-wire database (PostgreSQL + pgvector, or
CockroachDB v25.4+), migrated first with the engine's DDL. Every test empties the naaba
tables: use a scratch database. On CockroachDB the suite writes rows homed in eu-central-1
and us-east-1, so both must be cluster regions; --regions (or NAABA_DB_REGIONS) names the
database regions to set up, primary first (default eu-central-1,us-east-1).`;

function parse(argv: readonly string[]): { url?: string; regions?: string } | string {
  const options: { url?: string; regions?: string } = {};
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const value = inline ?? argv[++i];
    if (!value) return `${flag} needs a value`;
    if (flag === '--url') options.url = value;
    else if (flag === '--regions') options.regions = value;
    else return `unknown argument ${flag}`;
  }
  return options;
}

const options = parse(process.argv.slice(2));
if (typeof options === 'string') {
  console.error(`${options}\n\n${USAGE}`);
  process.exit(2);
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const jest = fileURLToPath(new URL('../../node_modules/jest/bin/jest.js', import.meta.url));
const env: Record<string, string | undefined> = { ...environment() };
if (options.url) env.NAABA_TEST_DATABASE_URL = options.url;
if (options.regions) env.NAABA_DB_REGIONS = options.regions;
const target = options.url ? 'test/store/url.test.ts' : 'test/store/';
if (options.url) console.log('store conformance suite against the given URL (the database is migrated, then emptied per test)');

const child = spawn(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--runInBand', target],
  { cwd: root, env, stdio: 'inherit' },
);
child.on('close', (code) => {
  process.exitCode = code ?? 1;
});
