// How the memory page's script is built: web/src/ (TypeScript, one module per section) bundled by
// esbuild into the one classic script the page's strict CSP serves as /app.js (decision 0138).
// Every route serves this build: the local server and the tests build it in memory when the page
// is first asked for (lambda/page/files-disk.ts); the Lambda bundle and the package inline the file
// `node web/build.js` writes to web/dist/app.js (lambda/page/files-bundled.ts).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, buildSync } from 'esbuild';

/** Where the page's modules start. */
export const PAGE_ENTRY = fileURLToPath(new URL('./src/main.ts', import.meta.url));
/** The file the bundles inline. */
export const PAGE_SCRIPT_FILE = fileURLToPath(new URL('./dist/app.js', import.meta.url));

/** One script, no module loader, for the browsers the page supports; readable (it is small and shipped once). */
const OPTIONS = {
  entryPoints: [PAGE_ENTRY],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022', 'chrome111', 'firefox111', 'safari16'],
  charset: 'utf8',
  legalComments: 'none',
  write: false,
  logLevel: 'silent',
};

const textOf = (result) => result.outputFiles[0].text;

/** The page's script as text. */
export async function buildPageScript() {
  return textOf(await build(OPTIONS));
}

/** Writes the page's script to web/dist/app.js, where the bundles inline it from; returns the text. */
export function writePageScript() {
  const text = textOf(buildSync(OPTIONS));
  mkdirSync(fileURLToPath(new URL('./dist/', import.meta.url)), { recursive: true });
  // Written beside, then renamed: a bundle built at the same time reads the old file or the new, never half.
  const beside = `${PAGE_SCRIPT_FILE}.${process.pid}.tmp`;
  writeFileSync(beside, text);
  renameSync(beside, PAGE_SCRIPT_FILE);
  return text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writePageScript();
