import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirBusyError, lockDataDir } from '../../lambda/dev/data-dir.js';
import { runCli, startServeBinary } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'naaba-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every entry under `root` whose mode lets anyone but the owner in: `mode path` lines. */
function openEntries(root: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    const mode = stat.mode & 0o777;
    if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) out.push(`${mode.toString(8)} ${path}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

function loosen(root: string): void {
  const visit = (path: string) => {
    const isDir = lstatSync(path).isDirectory();
    chmodSync(path, isDir ? 0o777 : 0o666);
    if (isDir) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
}

// The real binary, stopped by SIGTERM: it exits 0 and leaves the folder private.
test('a new data folder is private to its owner: folders 0700, files 0600, also while the server runs', async () => {
  const data = join(dir, 'new');
  const server = await startServeBinary(['--data', data, '--port', '0']);
  try {
    expect(openEntries(data)).toEqual([]);
  } finally {
    expect(await server.stop()).toBe(0);
  }
  expect(openEntries(data)).toEqual([]);
});

test('a folder an older naaba left open is repaired at start-up, and the command says so', async () => {
  const data = join(dir, 'old');
  expect((await runCli(['migrate', '--data', data])).code).toBe(0);
  loosen(data);
  expect(openEntries(data).length).toBeGreaterThan(100);
  const again = await runCli(['migrate', '--data', data]);
  expect(again.code).toBe(0);
  expect(again.stderr).toMatch(/was readable by other users; made \d+ files and folders private \(0700\/0600\)/);
  expect(openEntries(data)).toEqual([]);
  const quiet = await runCli(['migrate', '--data', data]);
  expect(quiet.stderr).toBe('');
});

describe('the data folder lock', () => {
  const lockOf = (data: string) => join(data, 'naaba.lock');

  test('a lock naming a live pid that another process now uses (other start time) is stale, and taken over', () => {
    const data = join(dir, 'reused-pid');
    mkdirSync(data, { recursive: true });
    writeFileSync(lockOf(data), JSON.stringify({ pid: process.pid, started: '1' }));
    const release = lockDataDir(data);
    expect(JSON.parse(readFileSync(lockOf(data), 'utf8'))).toMatchObject({ pid: process.pid });
    release();
  });

  test('a lock held by a running process refuses, and says how to clear it if it is stale', () => {
    const data = join(dir, 'held');
    const release = lockDataDir(data);
    try {
      expect(() => lockDataDir(data)).toThrow(DataDirBusyError);
      expect(() => lockDataDir(data)).toThrow(/in use by process \d+; stop it first \(if no naaba runs, delete .*naaba\.lock\)/);
    } finally {
      release();
    }
  });
});
