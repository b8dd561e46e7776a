// `npm run build` (and `npm pack` through prepack): the CLI and everything it runs compiled to
// JavaScript in dist/, with the migrations and the page's files beside them where the compiled
// code looks for them (dist/sql, dist/web), so the package needs no TypeScript at run time.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const dist = new URL('dist/', root);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Emit only: `npm run typecheck` checks the same sources (in `npm test` and CI), and checking them
// again here doubled the build's time for identical output.
execFileSync(process.execPath, [tsc, '-p', new URL('tsconfig.build.json', root).pathname, '--noCheck'], { stdio: 'inherit' });
for (const folder of ['sql', 'web']) cpSync(new URL(`${folder}/`, root), new URL(`${folder}/`, dist), { recursive: true });
console.log(`built ${dist.pathname}`);
