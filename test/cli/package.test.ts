import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environment } from '../../lambda/config/env.js';

/**
 * The package a user would `npx`: `npm pack` gives a tarball that installs with no network and no
 * npm cache (its run-time dependencies are inside it), on the machine's own Node — not the
 * project's Node 24 — and serves MCP and the page from compiled JavaScript: no tsx, no TypeScript,
 * no Node download at install.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'naaba-package-'));
/** PATH without any node_modules/.bin: the machine's own node and npm, as a user's shell has them. */
const PATH = (environment().PATH ?? '')
  .split(delimiter)
  .filter((p) => !p.includes('node_modules'))
  .join(delimiter);
const env = { ...environment(), PATH, npm_config_offline: 'true', npm_config_cache: join(work, 'empty-cache') };
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, env, encoding: 'utf8' });

let tarball = '';

beforeAll(() => {
  // The pack runs in the checkout (prepack builds dist/), with the project's tools.
  execFileSync('npm', ['pack', '--pack-destination', work], { cwd: ROOT, stdio: 'ignore' });
  tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')) ?? 'no tarball');
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('the tarball’s package.json keeps build and test tools out of dependencies, and bundles what it runs', () => {
  const manifest = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json'], work)) as {
    dependencies: Record<string, string>;
    bundleDependencies: string[];
    bin: Record<string, string>;
  };
  for (const tool of ['tsx', 'node', '@electric-sql/pglite-socket', 'typescript', 'playwright-core', 'axe-core'])
    expect(manifest.dependencies[tool]).toBeUndefined();
  expect(manifest.bundleDependencies.sort()).toEqual(Object.keys(manifest.dependencies).sort());
  expect(manifest.bin).toEqual({ naaba: 'bin/naaba.js' });
  const files = run('tar', ['-tzf', tarball], work).split('\n');
  expect(files).toContain('package/dist/bin/cli/main.js');
  expect(files.filter((f) => /\.ts$/.test(f) && !f.includes('/node_modules/'))).toEqual([]);
});

test('installed offline with an empty cache on the machine’s Node, it serves MCP and the page', async () => {
  const node = run('node', ['--version'], work).trim();
  console.log(
    `package test: installing with ${node} (the machine's node) and npm ${run('npm', ['--version'], work).trim()}, offline`,
  );
  expect(Number(/^v(\d+)/.exec(node)?.[1])).toBeGreaterThanOrEqual(20);
  const app = join(work, 'app');
  mkdirSync(app);
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts=false', tarball], app);
  const installed = readdirSync(join(app, 'node_modules'));
  for (const tool of ['tsx', 'typescript', 'node', 'esbuild']) expect(installed).not.toContain(tool);
  expect(existsSync(join(app, 'node_modules', 'naaba', 'node_modules', '@electric-sql', 'pglite'))).toBe(true);

  const serve = spawn(join(app, 'node_modules', '.bin', 'naaba'), ['serve', '--port', '0', '--data', join(app, 'data')], { env });
  let output = '';
  serve.stdout.on('data', (d) => {
    output += d;
  });
  serve.stderr.on('data', (d) => {
    output += d;
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      serve.stdout.on('data', () => {
        const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (found) resolve(found);
      });
      serve.on('close', (code) => reject(new Error(`naaba serve exited ${code}:\n${output}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/`)).text()).toContain('naaba memory');
    const key = JSON.parse(
      run(join(app, 'node_modules', '.bin', 'naaba'), ['issue-key', 'smoke', '--data', join(app, 'data'), '--json'], app),
    );
    const answer = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'remember', arguments: { content: 'The ferry leaves at nine.', kind: 'fact' } },
      }),
    });
    expect(
      ((await answer.json()) as { result: { structuredContent: { outcome: string } } }).result.structuredContent.outcome,
    ).toBe('stored');
    expect(readFileSync(join(app, 'node_modules', 'naaba', 'bin', 'naaba.js'), 'utf8')).toContain('dist/bin/cli/main.js');
  } finally {
    serve.kill('SIGTERM');
  }
  // The sentence encoder ships inside the package too: its weights load from the installed files, offline.
  const embedded = execFileSync(join(app, 'node_modules', '.bin', 'naaba'), ['embed', 'The ferry leaves at nine.'], {
    cwd: app,
    env: { ...env, NAABA_EMBEDDER: 'sentence' },
    encoding: 'utf8',
  });
  expect(embedded).toMatch(/provider\s+use-lite-en\/512/);
  expect(embedded).toMatch(/dimension\s+512/);
}, 300_000);
