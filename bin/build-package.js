// `npm run build` (and `npm pack` through prepack): the CLI and only what it runs, bundled by esbuild
// into dist/ as JavaScript with no dependency left to install (docs/package.md, decision 0110).
//
// - One entry, `bin/cli/main.ts`; what it loads on demand (the Bedrock and OpenAI adapters, PGlite)
//   becomes separate chunks, so `naaba serve` parses only what it starts with. The local server runs
//   the Lambda handlers themselves (lambda/dev/server.ts), so middy and Powertools' logger and
//   metrics are in; what only Lambda loads (Powertools' tracer and the X-Ray SDK) and the CDK app
//   are never reached from the entry or are left out below.
// - Files found beside a module with `new URL(path, import.meta.url)` are copied beside the chunks:
//   PGlite's WebAssembly and file system image and pgvector's archive (their own `./file` URLs then
//   resolve there), and the migrations (`sql/`), whose URL in migrate.ts is rewritten to `./sql/`.
//   The page's files are inlined as text, as in the Lambda bundle (`NAABA_BUNDLED`, decision 0053),
//   its script built from web/src/ first (web/build.js, decision 0138).
// - The sentence encoder (`@energetic-ai/*`, 28 MB of weights) stays outside: an optional install
//   beside the package (decision 0110); `lambda/adapters/local/sentence-embedder.ts` says how.
// - Each bundled package's licence is kept in dist/THIRD-PARTY-LICENSES.txt.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writePageScript } from '../web/build.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/**
 * Left out: the optional sentence encoder; Powertools' tracer and the X-Ray SDK, which only a handler
 * inside Lambda loads (`traced` in lambda/observability.ts); pg's native binding (pg requires it only
 * when asked).
 */
const EXTERNAL = [
  '@energetic-ai/*',
  '@aws-lambda-powertools/tracer',
  '@aws-lambda-powertools/tracer/*',
  'aws-xray-sdk-core',
  'pg-native',
];

/** Files a bundled dependency reads beside its own module, as `new URL('./<file>', import.meta.url)`. */
const DEPENDENCY_FILES = {
  '@electric-sql/pglite': ['dist/pglite.wasm', 'dist/pglite.data', 'dist/initdb.wasm'],
  '@electric-sql/pglite-pgvector': ['dist/vector.tar.gz'],
};

/** The migrations, listed as the Lambda bundle lists them (lib/bundling.ts, decision 0071). */
function migrations() {
  const files = (engine) =>
    readdirSync(join(root, 'sql', engine))
      .filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n))
      .sort();
  return { postgres: files('postgres'), cockroach: files('cockroach') };
}

/**
 * Our sources' `new URL('<relative>', import.meta.url)`: in a bundle `import.meta.url` is the chunk's,
 * so each is rewritten to the same repository path beside the chunks, and that path copied there.
 */
const besideTheChunks = {
  name: 'beside-the-chunks',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      let text = readFileSync(args.path, 'utf8');
      text = text.replace(/new URL\((['`])(\.\.?\/[^'`$]*)\1, import\.meta\.url\)/g, (_, quote, path) => {
        const target = relative(root, join(dirname(args.path), path))
          .split(sep)
          .join('/');
        if (target.startsWith('..')) throw new Error(`${args.path}: ${path} points outside the repository`);
        const folder = target.split('/')[0];
        if (folder !== 'sql') throw new Error(`${args.path}: ${path} is not under sql/, which is all build-package.js copies`);
        return `new URL(${quote}./${target}${path.endsWith('/') ? '/' : ''}${quote}, import.meta.url)`;
      });
      return { contents: text, loader: 'ts' };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
// The page's script, built from web/src/ for the bundle to inline (decision 0138).
writePageScript();
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'bin/cli/main.ts' },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  metafile: true,
  external: EXTERNAL,
  mainFields: ['module', 'main'],
  // The CommonJS packages bundled (pg) `require` Node's built-ins: give the ESM chunks a `require`.
  banner: { js: "import { createRequire as naabaRequire } from 'node:module'; const require = naabaRequire(import.meta.url);" },
  define: { 'globalThis.NAABA_BUNDLED': 'true', 'globalThis.NAABA_MIGRATIONS': JSON.stringify(migrations()) },
  plugins: [besideTheChunks],
  logLevel: 'warning',
});

cpSync(join(root, 'sql'), join(dist, 'sql'), { recursive: true });
/** Each bundled package and its folder, from the inputs esbuild read (the innermost node_modules). */
const bundled = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
  if (match) bundled.set(match[2], join(root, match[1]));
}
for (const [pkg, files] of Object.entries(DEPENDENCY_FILES)) {
  if (!bundled.has(pkg)) throw new Error(`${pkg} is no longer bundled: drop it from DEPENDENCY_FILES`);
  const from = bundled.get(pkg);
  for (const file of files) cpSync(join(from, file), join(dist, file.split('/').pop()));
}

// Every bundled package's name, version and licence text.
const notices = [...bundled]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([pkg, from]) => {
    const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
    const licence = readdirSync(from).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = licence
      ? readFileSync(join(from, licence), 'utf8').trim()
      : `(no licence file; package.json says ${manifest.license})`;
    return `${pkg}@${manifest.version} (${manifest.license})\n\n${text}\n`;
  });
writeFileSync(join(dist, 'THIRD-PARTY-LICENSES.txt'), `${notices.join(`\n${'-'.repeat(72)}\n\n`)}`);
if (!existsSync(join(dist, 'cli.js'))) throw new Error('no dist/cli.js');
console.log(`built ${dist} (${bundled.size} packages bundled: ${[...bundled.keys()].sort().join(', ')})`);
