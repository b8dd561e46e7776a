// `npm run docs:decisions [-- --check]`: writes docs/decisions/README.md, the index of decision records.
import { main } from './docs/decisions-index.js';

process.exitCode = main(process.argv.slice(2));
