import { jest } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PAGE_CSP } from '../../lambda/page/files.js';
import { buildPageScript } from '../../web/build.js';
import {
  ENTRY_POINTS,
  EXTERNAL_MODULES,
  type EntryPoint,
  REPLACED_MODULES,
  REPO_ROOT,
  SILENCED_WARNINGS,
} from '../../lib/bundling.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { BUNDLE_ROOT, buildLambdaBundle, evaluatedAtLoad, type LambdaBundle } from './lambda-bundle.js';
import { environmentOf, firstStack, functionId } from './support.js';

const run = promisify(execFile);
// Bundling and child Node processes: sized to the work on a busy machine, not jest's 60 s.
jest.setTimeout(HEAVY_STEP_MS);

const bundles = new Map<EntryPoint, LambdaBundle>();
afterAll(() => rmSync(`${BUNDLE_ROOT}/test-${process.pid}`, { recursive: true, force: true }));
beforeAll(async () => {
  for (const entry of ['mcp', 'authorizer', 'sweeper', 'release-check'] as const)
    bundles.set(entry, await buildLambdaBundle(entry, { outDir: `${BUNDLE_ROOT}/test-${process.pid}` }));
}, HEAVY_STEP_MS);

test.each(['mcp', 'authorizer', 'sweeper', 'release-check'] as const)(
  'the %s bundle warns only about what the CDK app silences, and why',
  (entry) => {
    // The release check reaches no migration runner: it has nothing to silence.
    const expected = entry === 'release-check' ? [] : Object.entries(SILENCED_WARNINGS).map(([id, file]) => `${id} at ${file}`);

    expect([...new Set(bundles.get(entry)?.warnings)]).toEqual(expected);
  },
);

test('packages left out are loaded by require() or import() where the code reaches them, never at load', () => {
  const output = Object.values(bundles.get('mcp')?.metafile.outputs ?? {})[0];
  const external = (output?.imports ?? []).filter((i) => i.external && !isBuiltin(i.path));
  const patterns = Object.keys(EXTERNAL_MODULES).map((p) => new RegExp(`^${p.replace('*', '.*')}$`));

  expect(external.length).toBeGreaterThan(0);
  for (const i of external) {
    expect([i.path, ['require-call', 'dynamic-import'].includes(i.kind), patterns.some((p) => p.test(i.path))]).toEqual([
      i.path,
      true,
      true,
    ]);
  }
});

test("the MCP bundle's require() evaluates neither the MCP stack nor the page's data API: they load with their first request", () => {
  const bundle = bundles.get('mcp') as LambdaBundle;
  const loaded = evaluatedAtLoad(bundle.metafile, ENTRY_POINTS.mcp);
  const heavy = [...loaded.keys()].filter((f) =>
    /@modelcontextprotocol|zod-to-json-schema|lambda\/mcp\/serve|lambda\/http\/web-api/.test(f),
  );
  const bytes = [...loaded.values()].reduce((sum, b) => sum + b, 0);

  expect(heavy).toEqual([]);
  // Figures, for the record (docs/benchmarks.md): what require() evaluates, of the whole bundle.
  console.log(`MCP bundle: ${bytes} of ${bundle.bytes} bytes evaluated at require()`);
  expect(bytes).toBeLessThan(bundle.bytes / 2);
});

test('the bundles take the AWS SDK clients from the runtime and carry no ajv (decision 0137)', () => {
  const output = (entry: EntryPoint) => Object.values(bundles.get(entry)?.metafile.outputs ?? {})[0];
  const packages = (entry: EntryPoint) =>
    new Set(
      Object.keys(output(entry)?.inputs ?? {}).flatMap((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? []),
    );
  const leftOut = (entry: EntryPoint) => new Set((output(entry)?.imports ?? []).filter((i) => i.external).map((i) => i.path));

  for (const entry of ['mcp', 'authorizer', 'sweeper', 'release-check'] as const) {
    const carried = [...packages(entry)].filter((p) => p.startsWith('@aws-sdk/') || Object.keys(REPLACED_MODULES).includes(p));
    expect([entry, carried]).toEqual([entry, []]);
  }
  expect(
    ['@aws-sdk/client-secrets-manager', '@aws-sdk/client-bedrock-runtime'].filter((p) => leftOut('mcp').has(p)),
  ).toHaveLength(2);
  expect(leftOut('authorizer').has('@aws-sdk/client-secrets-manager')).toBe(true);
  // The MCP server imports ajv's stand-in in its place, which throws if anything constructs it.
  expect(Object.keys(output('mcp')?.inputs ?? {})).toContain(REPLACED_MODULES.ajv?.by);
});

/** Loads a bundle in a fresh Node process with the stack's environment, answers GET `path` (/healthz), lists what got loaded. */
async function healthzIn(
  entry: EntryPoint,
  path = '/healthz',
): Promise<{ statusCode: number; body: string; headers: Record<string, string>; loaded: string[] }> {
  const { stack, template } = firstStack();
  const env = environmentOf(template, functionId(template, /MCP endpoint/));
  // Resolution hooks see every module loaded, by require() or import(), from here on.
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); loaded.push(r.url); return r; } });
    const { handler } = await import(${JSON.stringify(pathToFileURL(bundles.get(entry)?.file ?? '').href)});
    const event = { httpMethod: 'GET', path: ${JSON.stringify(path)}, headers: { Host: 'api.example' }, body: null, isBase64Encoded: false, requestContext: { requestId: 'r1' } };
    const context = { functionName: 'naaba-mcp', awsRequestId: 'r1', getRemainingTimeInMillis: () => 25000 };
    const result = await handler(event, context);
    process.stdout.write('\\n' + JSON.stringify({ ...result, loaded: loaded.filter((u) => u.includes('node_modules')) }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: '/usr/bin:/bin', ...env, NAABA_LOG_LEVEL: 'SILENT', AWS_REGION: stack.region },
    timeout: HEAVY_STEP_MS,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

test('the shipped MCP bundle serves the memory page from text inlined at bundle time, with its CSP, offline', async () => {
  const page = await healthzIn('mcp', '/');
  const script = await healthzIn('mcp', '/app.js');

  expect(page.statusCode).toBe(200);
  expect(page.body).toBe(readFileSync(join(REPO_ROOT, 'web/index.html'), 'utf8'));
  expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
  expect(page.headers['x-content-type-options']).toBe('nosniff');
  expect(page.headers['referrer-policy']).toBe('no-referrer');
  expect(script.body).toBe(await buildPageScript());
  expect(script.body).toContain('api/overview');
  expect(script.headers['content-type']).toMatch(/^text\/javascript/);
  expect(page.loaded.filter((url) => /@electric-sql|client-bedrock-runtime|client-secrets-manager/.test(url))).toEqual([]);
});

test('the shipped MCP bundle, configured as the stack configures it, loads on Node 24 and answers /healthz offline', async () => {
  const result = await healthzIn('mcp');

  expect(process.versions.node.split('.')[0]).toBe('24');
  expect(result.statusCode).toBe(200);
  expect(JSON.parse(result.body)).toMatchObject({ status: 'ok' });
  // On-demand imports stay on demand: /healthz loads neither PGlite nor any AWS SDK client.
  expect(result.loaded.filter((url) => /@electric-sql|client-bedrock-runtime|client-secrets-manager/.test(url))).toEqual([]);
});
