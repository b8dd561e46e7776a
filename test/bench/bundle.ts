/**
 * `npm run bench:bundle [-- --runs 15]`: the Lambda bundles' minified size, and the MCP bundle's
 * cold import time on the Lambda's Node major, as the median of fresh processes. Figures are
 * printed, never asserted: timings depend on the machine. Bundles are built with the settings the
 * CDK app ships (lib/bundling.ts), so what is measured is what is deployed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { BUNDLING, EXTERNAL_MODULES, LAMBDA_NODE_MAJOR, REPO_ROOT } from '../../lib/bundling.js';
import { buildLambdaBundle, bytesByPackage, type LambdaBundle, runtimeImports } from '../infra/lambda-bundle.js';

const MIB = 1024 * 1024;
const TARGET_BYTES = MIB;
const TARGET_IMPORT_MS = 150;

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 15;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** A Node binary of the Lambda's major: this process's, else the one the `node` npm package installs. */
function lambdaNode(): string {
  const candidates = [process.execPath, join(REPO_ROOT, 'node_modules', '.bin', 'node')];
  for (const binary of candidates) {
    if (!existsSync(binary)) continue;
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
    if (version.startsWith(`v${LAMBDA_NODE_MAJOR}.`)) return binary;
  }
  throw new Error(`no Node ${LAMBDA_NODE_MAJOR} found (tried ${candidates.join(', ')}); run npm ci`);
}

/** One fresh process: milliseconds spent in `import()` of a module, and the whole process's wall time. */
function coldImport(node: string, module: string): { importMs: number; processMs: number } {
  const specifier = module.startsWith('/') ? pathToFileURL(module).href : module;
  const script = `const t0 = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t0));`;
  const started = performance.now();
  const out = execFileSync(node, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: dirname(node), NAABA_LOG_LEVEL: 'SILENT' },
    cwd: REPO_ROOT,
  });
  return { importMs: Number(out.trim().split('\n').pop()), processMs: performance.now() - started };
}

function processBaseline(node: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    execFileSync(node, ['-e', '']);
    times.push(performance.now() - started);
  }
  return median(times);
}

function describe(name: string, bundle: LambdaBundle): void {
  const gzip = gzipSync(readFileSync(bundle.file)).length;
  console.log(`${name.padEnd(28)} ${String(bundle.bytes).padStart(9)} B  ${kib(bundle.bytes).padStart(11)}  gzip ${kib(gzip)}`);
}

async function main(): Promise<void> {
  const node = lambdaNode();
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `naaba Lambda bundles (esbuild, minified ${BUNDLING.format}, target ${BUNDLING.target}); Node ${nodeVersion}; load average ${load}\n`,
  );

  const mcp = await buildLambdaBundle('mcp');
  const bundles = { mcp, authorizer: await buildLambdaBundle('authorizer'), sweeper: await buildLambdaBundle('sweeper') };
  const mcpWithSdk = await buildLambdaBundle('mcp', { withAwsSdk: true });
  console.log('bundle                          minified');
  for (const [name, bundle] of Object.entries(bundles)) describe(name, bundle);
  describe('mcp, if it carried the SDK', mcpWithSdk);

  console.log('\nMCP bundle, largest packages:');
  for (const [name, bytes] of bytesByPackage(mcp.metafile).slice(0, 10))
    console.log(`  ${name.padEnd(34)} ${kib(bytes).padStart(11)}`);
  const locales = Object.values(mcp.metafile.outputs)
    .flatMap((o) => Object.entries(o.inputs))
    .filter(([path]) => path.includes('zod/v4/locales/'))
    .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
  console.log(
    `  of which zod's message locales: ${kib(locales)} (a named \`import { z } from 'zod'\` would keep all of them; lambda/ imports zod as a namespace)`,
  );
  console.log('\nLeft to the runtime or never reached in Lambda:');
  for (const [pattern, why] of Object.entries(EXTERNAL_MODULES)) console.log(`  ${pattern.padEnd(20)} ${why}`);
  console.log(`  imported by the MCP bundle: ${runtimeImports(mcp.metafile).join(', ')}`);

  coldImport(node, mcp.file); // warms the file system cache, not the process
  const samples = Array.from({ length: RUNS }, () => coldImport(node, mcp.file));
  const withSdk = Array.from({ length: RUNS }, () => coldImport(node, mcpWithSdk.file));
  const imports = samples.map((s) => s.importMs);
  const baseline = processBaseline(node);
  console.log(`\nMCP bundle cold import, ${RUNS} fresh processes:`);
  console.log(
    `  import() median ${median(imports).toFixed(0)} ms (min ${Math.min(...imports).toFixed(0)}, max ${Math.max(...imports).toFixed(0)})`,
  );
  console.log(
    `  whole process median ${median(samples.map((s) => s.processMs)).toFixed(0)} ms; empty node process ${baseline.toFixed(0)} ms`,
  );
  console.log(`  with the SDK bundled instead: import() median ${median(withSdk.map((s) => s.importMs)).toFixed(0)} ms`);
  console.log('  runtime-provided SDK clients, each alone from node_modules (paid when first imported):');
  for (const client of ['@aws-sdk/client-secrets-manager', '@aws-sdk/client-bedrock-runtime']) {
    const times = Array.from({ length: RUNS }, () => coldImport(node, client).importMs);
    console.log(`    ${client.padEnd(34)} median ${median(times).toFixed(0)} ms`);
  }

  console.log('\nTargets (figures, not assertions):');
  console.log(`  size   ${kib(mcp.bytes)} of ${kib(TARGET_BYTES)}: ${mcp.bytes <= TARGET_BYTES ? 'within' : 'OVER'} target`);
  console.log(
    `  import ${median(imports).toFixed(0)} ms of ${TARGET_IMPORT_MS} ms: ${median(imports) <= TARGET_IMPORT_MS ? 'within' : 'OVER'} target`,
  );
}

await main();
