import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SENTENCE_PACKAGES } from '../../lambda/adapters/local/sentence-embedder.js';
import { environment } from '../../lambda/config/env.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { buildPageScript } from '../../web/build.js';

/**
 * The package a user would `npx`: `npm pack` gives a tarball of JavaScript bundled by esbuild
 * (bin/build-package.js) with no dependency left to install, so it installs with no network and no
 * npm cache, on the machine's own Node — not the project's Node 24 — and serves MCP and the page.
 * The sentence encoder is an optional install beside it (decision 0110). How long a user waits is
 * `npm run bench:install`'s question, never this test's.
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
/** The packages esbuild must leave out: only Lambda loads them, or they are the optional encoder. */
const LEFT_OUT = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core', ...Object.keys(SENTENCE_PACKAGES)];

interface Packed {
  filename: string;
  size: number;
  files: { path: string }[];
}
let packed: Packed;
let tarball = '';

beforeAll(() => {
  // The pack runs in the checkout (prepack bundles dist/), with the project's tools.
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [first] = JSON.parse(out.slice(out.indexOf('['))) as Packed[];
  if (!first) throw new Error('npm pack reported no tarball');
  packed = first;
  tarball = join(work, packed.filename);
}, HEAVY_STEP_MS);
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the bundled CLI, no dependency to install, and the encoder only as an optional peer', () => {
  const manifest = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json'], work)) as {
    dependencies?: Record<string, string>;
    bundleDependencies?: string[];
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
    bin: Record<string, string>;
  };
  expect(manifest.dependencies ?? {}).toEqual({});
  expect(manifest.bundleDependencies).toBeUndefined();
  // The install line the error message prints names exactly the versions package.json declares.
  expect(manifest.peerDependencies).toEqual(SENTENCE_PACKAGES);
  for (const name of Object.keys(SENTENCE_PACKAGES)) expect(manifest.peerDependenciesMeta[name]?.optional).toBe(true);
  expect(manifest.bin).toEqual({ naaba: 'bin/naaba.js' });

  const files = packed.files.map((f) => f.path);
  expect(files).toContain('dist/cli.js');
  expect(files.filter((f) => f.includes('node_modules/') || /\.ts$/.test(f) || f.startsWith('lambda/'))).toEqual([]);
  const licences = run('tar', ['-xOzf', tarball, 'package/dist/THIRD-PARTY-LICENSES.txt'], work);
  expect(licences).toMatch(/^@electric-sql\/pglite@/m);
  for (const name of LEFT_OUT) expect(licences).not.toMatch(new RegExp(`^${name}@`, 'm'));
  // Issue 35: at most 15 MB (it was 42.1 MB with the encoder's weights and the Lambda-only modules inside).
  expect(packed.size).toBeLessThanOrEqual(15e6);
});

test(
  'installed offline with an empty cache on the machine’s Node, it serves MCP and the page',
  async () => {
    const node = run('node', ['--version'], work).trim();
    console.log(
      `package test: installing with ${node} (the machine's node) and npm ${run('npm', ['--version'], work).trim()}, offline`,
    );
    expect(Number(/^v(\d+)/.exec(node)?.[1])).toBeGreaterThanOrEqual(20);
    const app = join(work, 'app');
    mkdirSync(app);
    run('npm', ['install', '--no-audit', '--no-fund', tarball], app);
    // Nothing but naaba itself: no tool, no dependency, no encoder.
    expect(readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['naaba']);
    expect(existsSync(join(app, 'node_modules', 'naaba', 'node_modules'))).toBe(false);

    const serve = spawn(join(app, 'node_modules', '.bin', 'naaba'), ['serve', '--port', '0', '--data', join(app, 'data')], {
      env,
    });
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
      // Issued before the requests: a blocking child that outlives the server's keep-alive would
      // leave fetch a closed connection to reuse ("other side closed") on a loaded machine.
      const key = JSON.parse(
        run(join(app, 'node_modules', '.bin', 'naaba'), ['issue-key', 'smoke', '--data', join(app, 'data'), '--json'], app),
      );
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${url}/`)).text()).toContain('naaba memory');
      // The page's script is the build of web/src/, inlined when the package was built (decision 0138).
      expect(await (await fetch(`${url}/app.js`)).text()).toBe(await buildPageScript());
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
      expect(readFileSync(join(app, 'node_modules', 'naaba', 'bin', 'naaba.js'), 'utf8')).toContain('dist/cli.js');
    } finally {
      serve.kill('SIGTERM');
    }

    // The sentence encoder is not installed: asking for it says how to add it, in one message, no stack.
    const naaba = join(app, 'node_modules', '.bin', 'naaba');
    const sentence = { ...env, NAABA_EMBEDDER: 'sentence' };
    const refused = spawnSync(naaba, ['embed', 'The ferry leaves at nine.'], { cwd: app, env: sentence, encoding: 'utf8' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      `npm install -g ${Object.entries(SENTENCE_PACKAGES)
        .map(([n, v]) => `${n}@${v}`)
        .join(' ')}`,
    );
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    // Installed beside naaba (linked from this checkout's node_modules: the offline test cannot fetch
    // 28 MB), the bundled CLI finds it and embeds with it.
    mkdirSync(join(app, 'node_modules', '@energetic-ai'));
    for (const name of Object.keys(SENTENCE_PACKAGES))
      symlinkSync(join(ROOT, 'node_modules', name), join(app, 'node_modules', name));
    const embedded = execFileSync(naaba, ['embed', 'The ferry leaves at nine.'], { cwd: app, env: sentence, encoding: 'utf8' });
    expect(embedded).toMatch(/provider\s+use-lite-en\/512/);
    expect(embedded).toMatch(/dimension\s+512/);
  },
  HEAVY_STEP_MS,
);

/** Starts naaba serve by `command` in its own process group, and waits for the banner's connect line. */
async function banner(command: string[], cwd: string, routeEnv: NodeJS.ProcessEnv) {
  const [file = '', ...args] = command;
  const serve = spawn(file, args, { cwd, env: routeEnv, detached: true });
  let output = '';
  const heard = (d: Buffer) => {
    output += d;
  };
  serve.stdout.on('data', heard);
  serve.stderr.on('data', heard);
  const ended = new Promise<void>((resolve) => serve.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    serve.stdout.on('data', () => {
      if (output.includes('connect a client')) resolve();
    });
    serve.on('close', (code) => reject(new Error(`naaba serve exited ${code}:\n${output}`)));
  });
  const stop = async () => {
    process.kill(-(serve.pid ?? 0), 'SIGTERM');
    await ended;
  };
  return { output: () => output, stop };
}

test(
  'every route prints next steps that run from where the user is: a project install, a global install, the npx tarball line',
  async () => {
    const standIn = join(work, 'stand-in');
    mkdirSync(standIn, { recursive: true });
    writeFileSync(join(standIn, 'claude'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(standIn, 'claude'), 0o755);
    const project = join(work, 'project');
    const prefix = join(work, 'global');
    mkdirSync(project, { recursive: true });
    run('npm', ['install', '--no-audit', '--no-fund', tarball], project);
    run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], work);
    const routes = [
      { name: 'project', cwd: project, command: [join(project, 'node_modules', '.bin', 'naaba')], naaba: 'npx naaba' },
      { name: 'global', cwd: work, command: [join(prefix, 'bin', 'naaba')], naaba: 'naaba' },
      // As docs/package.md writes it: the tarball by its path from where the user is.
      {
        name: 'npx',
        cwd: work,
        command: ['npx', '-y', `--package=./${packed.filename}`, 'naaba'],
        naaba: `npx -y --package=${tarball} naaba`,
      },
    ];
    const routeEnv = { ...env, HOME: join(work, 'home'), PATH: [standIn, join(prefix, 'bin'), PATH].join(delimiter) };
    for (const route of routes) {
      const data = join(work, `${route.name}-data`);
      const server = await banner([...route.command, 'serve', '--port', '0', '--data', data], route.cwd, routeEnv);
      try {
        const output = server.output();
        const printed = [
          /connect a client, in another terminal: {2}(.+)/.exec(output)?.[1] ?? '',
          /keys: (.+)/.exec(output)?.[1] ?? '',
        ];
        expect({ route: route.name, printed }).toEqual({
          route: route.name,
          printed: [
            `${route.naaba} connect claude-code --issue claude-code --data ${data} --write`,
            `${route.naaba} list-keys --data ${data}`,
          ],
        });
        // Outside a clone or a project's install, `npx naaba` would ask the public registry for that name.
        if (route.naaba !== 'npx naaba') expect(output).not.toContain('npx naaba ');
        for (const line of printed) {
          const ran = spawnSync('sh', ['-c', line], { cwd: route.cwd, env: routeEnv, encoding: 'utf8' });
          expect({ route: route.name, line, code: ran.status, stderr: ran.status === 0 ? '' : ran.stderr }).toEqual({
            route: route.name,
            line,
            code: 0,
            stderr: '',
          });
        }
        const listed = spawnSync('sh', ['-c', printed[1] ?? ''], { cwd: route.cwd, env: routeEnv, encoding: 'utf8' });
        expect(listed.stdout).toContain('claude-code');
      } finally {
        await server.stop();
      }
    }
  },
  3 * HEAVY_STEP_MS,
);
