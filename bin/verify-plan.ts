// `npm run verify:plan -- [--url URL [--seed] [--region R]]`: the proof is the plan (docs/index-compatibility.md).
import { main } from './plan/cli.js';

process.exitCode = await main(process.argv.slice(2));
