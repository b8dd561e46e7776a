/**
 * `npm run bench:install [-- --rounds 5]`: what a new user waits for, and what the package weighs.
 * It packs the package (prepack bundles dist/), prints the tarball's size, unpacked size and file
 * count as `npm pack` reports them, then times, round after round in the same minutes, from the
 * command to the first 200 from `/healthz` on a new data folder:
 *
 * - `clone`: `npm start` in this checkout (installed already: the README's clone path);
 * - `npx`: `npx -y --package=<tarball> naaba serve` with an empty npm cache, offline: every run is a first run,
 *   as a client's `npx -y naaba serve` is on a new machine, less the download of the tarball;
 * - `global`: `npm install -g <tarball>` into a new prefix with an empty cache, then `naaba serve`.
 *
 * The packaged variants run on the machine's own node and npm (PATH without node_modules/.bin), as a
 * user's shell has them; the clone on the project's Node 24, as `npm start` runs it. Figures are
 * medians, and the median of each round's ratio to the same round's clone, printed, never asserted
 * (issue 35's target: ≤ 2×).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environment } from '../lambda/config/env.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const roundsFlag = process.argv.indexOf('--rounds');
const ROUNDS = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 5;
/** Ports of helper K's range, one per variant, so a slow shutdown never collides with the next start. */
const PORTS = { clone: 56110, npx: 56111, global: 56112 } as const;
type Variant = keyof typeof PORTS;
const GIVE_UP_MS = 600_000;

const work = mkdtempSync(join(tmpdir(), 'naaba-bench-install-'));
const base = environment();
/** The machine's own node and npm, as a user's shell has them. */
const userPath = (base.PATH ?? '')
  .split(delimiter)
  .filter((p) => !p.includes('node_modules'))
  .join(delimiter);
const userEnv = { ...base, PATH: userPath, NAABA_LOG_LEVEL: 'SILENT' };

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

interface Packed {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
}

function pack(): Packed & { path: string } {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [packed] = JSON.parse(out.slice(out.indexOf('['))) as Packed[];
  if (!packed) throw new Error('npm pack reported no tarball');
  return { ...packed, path: join(work, packed.filename) };
}

/** Polls `/healthz` until it answers 200, or the process exits. */
async function healthy(port: number, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    const gone = exited();
    if (gone !== undefined) throw new Error(gone);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no /healthz on port ${port} within ${GIVE_UP_MS / 1000} s`);
}

/** Starts `command`, waits for `/healthz`, stops the whole process group it started; the seconds taken. */
async function timeToHealthy(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  port: number,
): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let exit: string | undefined;
  child.on('exit', (code) => {
    exit = `${command} ${args.join(' ')} exited ${code} before /healthz:\n${stderr.slice(-2000)}`;
  });
  try {
    await healthy(port, () => exit);
    return (performance.now() - started) / 1000;
  } finally {
    if (exit === undefined && child.pid) {
      const closed = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      await closed;
    }
  }
}

/** The global variant's two parts, round by round: `npm install -g`, then `naaba serve` to `/healthz`. */
const globalParts: { installed: number; serving: number }[] = [];

async function run(variant: Variant, tarball: string, round: number): Promise<number> {
  const dir = join(work, `${variant}-${round}`);
  mkdirSync(dir);
  const port = PORTS[variant];
  const serve = ['serve', '--port', String(port), '--data', join(dir, 'data')];
  const fresh = {
    ...userEnv,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  switch (variant) {
    case 'clone':
      return timeToHealthy(
        'npm',
        ['start', '--silent', '--', ...serve.slice(1)],
        ROOT,
        { ...base, NAABA_LOG_LEVEL: 'SILENT' },
        port,
      );
    case 'npx':
      return timeToHealthy('npx', ['-y', `--package=${tarball}`, 'naaba', ...serve], dir, fresh, port);
    case 'global': {
      const prefix = join(dir, 'prefix');
      const started = performance.now();
      execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
        cwd: dir,
        env: fresh,
        stdio: 'ignore',
      });
      const installed = (performance.now() - started) / 1000;
      const serving = await timeToHealthy(join(prefix, 'bin', 'naaba'), serve, dir, fresh, port);
      globalParts.push({ installed, serving });
      return installed + serving;
    }
  }
}

try {
  const packed = pack();
  const version = (cmd: string) => execFileSync(cmd, ['--version'], { env: userEnv, encoding: 'utf8' }).trim();
  console.log(
    `package ${packed.filename}: tarball ${mb(packed.size)}, unpacked ${mb(packed.unpackedSize)}, ${packed.entryCount} files`,
  );
  console.log(
    `packaged runs on the machine's node ${version('node')}, npm ${version('npm')}; the clone on the project's Node (npm start)`,
  );
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${ROUNDS} rounds, interleaved\n`,
  );
  const times: Record<Variant, number[]> = { clone: [], npx: [], global: [] };
  const order: Variant[] = ['clone', 'npx', 'global'];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotated each round, so no variant always runs first (or right after another's shutdown).
    const rotated = [...order.slice(round % 3), ...order.slice(0, round % 3)];
    for (const variant of rotated) {
      const seconds = await run(variant, packed.path, round);
      times[variant].push(seconds);
      console.log(`round ${round + 1}  ${variant.padEnd(6)} ${seconds.toFixed(1)} s to /healthz`);
    }
  }
  // Each round's time over the same round's clone: a load that drifts over minutes cancels out.
  const paired = (variant: Variant) => median(times[variant].map((t, i) => t / (times.clone[i] ?? Number.NaN)));
  console.log(`\nmedian to /healthz, and the median of each round's ratio to that round's clone (target ≤ 2.0):`);
  for (const variant of order) {
    console.log(`  ${variant.padEnd(6)} ${median(times[variant]).toFixed(1)} s  ×${paired(variant).toFixed(2)}`);
  }
  const install = median(globalParts.map((p) => p.installed));
  const serving = median(globalParts.map((p) => p.serving));
  console.log(`  global's parts: npm install -g ${install.toFixed(1)} s, then the installed naaba serve ${serving.toFixed(1)} s`);
  const installedBytes = Number(
    execFileSync('du', ['-sb', join(work, readdirSync(work).find((f) => f.startsWith('global-')) ?? '', 'prefix')], {
      encoding: 'utf8',
    }).split('\t')[0],
  );
  console.log(`\ninstalled (global prefix, with the npm shims): ${mb(installedBytes)}`);
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
