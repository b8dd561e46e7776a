import { mkdirSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { BUNDLING, ENTRY_POINTS, type EntryPoint, preparePageScript, REPO_ROOT } from '../../lib/bundling.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';

/**
 * Builds a Lambda entry point with the settings the CDK app bundles it with (lib/bundling.ts),
 * through esbuild's API instead of NodejsFunction, so tests and the bundle benchmark look at the
 * very bundle that ships without synthesizing a stack.
 */

/**
 * Where bundles are written: inside the repository's node_modules, so the modules left out
 * (the AWS SDK, which the Lambda runtime provides) resolve from node_modules as they would from
 * the runtime's own.
 */
export const BUNDLE_ROOT = join(REPO_ROOT, 'node_modules', '.cache', 'naaba-bundles');

export interface LambdaBundle {
  readonly file: string;
  readonly bytes: number;
  readonly metafile: Metafile;
  /** esbuild's warnings as `id at file`, including the ones the CDK app silences. */
  readonly warnings: string[];
}

export interface BundleOptions {
  /** Carry ajv as the bundles did before decision 0137, for comparison (the shipped bundles replace it). */
  readonly withAjv?: boolean;
  readonly outDir?: string;
}

export async function buildLambdaBundle(entry: EntryPoint, options: BundleOptions = {}): Promise<LambdaBundle> {
  const dir = join(options.outDir ?? BUNDLE_ROOT, `${entry}${options.withAjv ? '-with-ajv' : ''}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, BUNDLING.format === 'esm' ? 'index.mjs' : 'index.js');
  preparePageScript();
  const result = await build({
    entryPoints: [join(REPO_ROOT, ENTRY_POINTS[entry])],
    outfile: file,
    bundle: true,
    platform: BUNDLING.platform,
    format: BUNDLING.format,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourcemap,
    mainFields: [...BUNDLING.mainFields],
    external: [...BUNDLING.external],
    alias: options.withAjv ? {} : { ...BUNDLING.alias },
    define: { ...BUNDLING.define },
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0];
  if (!output) throw new Error(`esbuild wrote no output for ${entry}`);
  const warnings = result.warnings.map((w) => `${w.id} at ${w.location?.file ?? '?'}`);
  return { file, bytes: output.bytes, metafile: result.metafile, warnings };
}

/** Bytes in the bundle per npm package (`(naaba)` for the project's own code), largest first. */
export function bytesByPackage(metafile: Metafile): [string, number][] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name = match?.[1] ?? '(naaba)';
      totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

/** The packages the bundle loads at run time instead of carrying them, and how (`require-call` runs when reached). */
export function runtimeImports(metafile: Metafile): string[] {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (imported.external && !isBuiltin(imported.path)) names.add(`${imported.path} (${imported.kind})`);
    }
  }
  return [...names].sort();
}

/** What a shipped bundle's handler answered (or the message it failed with), and every line the process printed. */
export interface BundleRun {
  readonly result: unknown;
  readonly failure?: string;
  readonly lines: string[];
}

/** The MCP function's timeout (lib/region-stack.ts): what a bundle has when its test names none. */
const MCP_TIMEOUT_MS = 25_000;

/**
 * Runs a bundle as the Lambda runtime does: `require()` of its file in a fresh Node 24 process
 * with exactly `env` (no inherited variables), its handler called once with `event` and a Lambda
 * context whose remaining time counts down from `timeoutMs`, the function's configured timeout
 * (middy ends a handler that runs past it). The process exits shortly after the answer, as a
 * container would be frozen. A handler that fails (the authorizer's `Unauthorized`) gives
 * `failure`; a process that answers nothing throws.
 */
export async function invokeBundle(
  bundle: Pick<LambdaBundle, 'file'>,
  functionName: string,
  env: Readonly<Record<string, string>>,
  event: unknown,
  exportName = 'handler',
  timeoutMs = MCP_TIMEOUT_MS,
): Promise<BundleRun> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { dirname } = await import('node:path');
  const script = `
    const handler = require(${JSON.stringify(bundle.file)})[${JSON.stringify(exportName)}];
    const deadline = Date.now() + ${Number(timeoutMs)};
    const context = { functionName: ${JSON.stringify(functionName)}, functionVersion: '$LATEST', awsRequestId: 'req-' + process.pid,
      memoryLimitInMB: '1024', invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:' + ${JSON.stringify(functionName)},
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    handler(JSON.parse(process.env.TEST_EVENT), context).then(
      (result) => { process.stdout.write('\\nRESULT ' + JSON.stringify(result ?? null) + '\\n'); setTimeout(() => process.exit(0), 300); },
      (error) => { process.stdout.write('\\nFAILED ' + JSON.stringify(String(error && error.message)) + '\\n'); setTimeout(() => process.exit(0), 300); });`;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', script], {
    cwd: dirname(bundle.file),
    env: { PATH: '/usr/bin:/bin', ...env, TEST_EVENT: JSON.stringify(event) },
    timeout: HEAVY_STEP_MS,
  });
  const lines = `${stdout}\n${stderr}`.split('\n');
  const answered = lines.find((l) => l.startsWith('RESULT '));
  const failed = lines.find((l) => l.startsWith('FAILED '));
  if (answered) return { result: JSON.parse(answered.slice(7)), lines };
  if (failed) return { result: undefined, failure: JSON.parse(failed.slice(7)) as string, lines };
  throw new Error(`the ${functionName} bundle answered nothing:\n${lines.join('\n')}`);
}

/**
 * The inputs a bundle evaluates when it is required: those its entry reaches by static imports
 * (ESM modules are hoisted into the bundle's top level), not those behind an `import()`, which
 * esbuild wraps to run when first reached. With their bytes in the bundle.
 */
export function evaluatedAtLoad(metafile: Metafile, entry: string): Map<string, number> {
  const output = Object.values(metafile.outputs)[0];
  const seen = new Map<string, number>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.set(file, output?.inputs[file]?.bytesInOutput ?? 0);
    for (const i of metafile.inputs[file]?.imports ?? []) {
      if (!i.external && (i.kind === 'import-statement' || i.kind === 'require-call')) stack.push(i.path);
    }
  }
  return seen;
}
