// `npm run test:model -- [--runs N] [--seed S] [--url URL]`: the curation model, longer or elsewhere.
import { parseFlags, runJest } from '../support/jest-run.js';

const USAGE = `usage: npm run test:model -- [--runs N] [--seed S] [--url URL]

Runs N random sequences of curation operations (default 40, as npm test does) against the real
store on PGlite and compares every step with the reference model (test/model/curation-model.ts);
a failure prints the shrunk sequence and the seed that replays it (--seed).
--url: the same against a PostgreSQL-wire database instead (a scratch one: its naaba tables are
emptied before every sequence).`;

const options = parseFlags(process.argv.slice(2), ['runs', 'seed', 'url']);
const whole = (v: string | undefined) => v === undefined || /^\d+$/.test(v);
if (typeof options === 'string' || !whole(options.runs) || !whole(options.seed) || options.runs === '0') {
  console.error(`${typeof options === 'string' ? options : '--runs and --seed take positive whole numbers'}\n\n${USAGE}`);
  process.exit(2);
}
runJest(options.url ? 'test/model/url.test.ts' : 'test/model/curation.test.ts', {
  NAABA_MODEL_RUNS: options.runs,
  NAABA_MODEL_SEED: options.seed,
  NAABA_MODEL_URL: options.url,
});
