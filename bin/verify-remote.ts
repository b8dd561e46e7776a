// `npm run verify:remote -- --url URL --token T [--token2 T2]`: checks a deployed endpoint end to end (docs/deployment.md).
import { main } from './remote/cli.js';

process.exitCode = await main(process.argv.slice(2));
