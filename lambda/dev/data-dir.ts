import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An embedded database admits one process at a time. The process that opens a data folder holds
 * its lock file; a running server also leaves a note (URL and an admin secret, readable by the
 * folder's owner only) so that key commands can go through it instead of opening the folder.
 */

const LOCK = 'naaba.lock';
const SERVER_NOTE = 'server.json';

export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}

export interface ServerNote {
  readonly url: string;
  readonly adminSecret: string;
  readonly pid: number;
}

/**
 * When the kernel started a process (Linux: field 22 of /proc/PID/stat, in clock ticks since boot),
 * or undefined where that cannot be read. A lock names its holder by pid *and* start time, so a pid
 * that was reused by another process after a crash does not keep the folder locked.
 */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Makes a data folder private to its owner: every folder 0700, every file 0600 (memory content and
 * key hashes live in the database files and the WAL). Returns how many entries it had to change.
 * PGlite writes the files of a new database with mode 0666 whatever the umask, so this runs
 * again right after PGlite opens a folder.
 */
export function makePrivate(dataDir: string): number {
  let changed = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const wanted = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== wanted) {
      chmodSync(path, wanted);
      changed += 1;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dataDir);
  return changed;
}

/**
 * Takes the folder's lock (clearing a stale one left by a dead process); returns its release.
 * From here on this process creates files for its owner only (umask 077).
 */
export function lockDataDir(dataDir: string): () => void {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify({ pid: process.pid, started: startTime(process.pid) }));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readJson<{ pid?: number; started?: string }>(path);
      const reused = holder?.pid !== undefined && holder.started !== undefined && startTime(holder.pid) !== holder.started;
      if (holder?.pid && alive(holder.pid) && !reused) {
        throw new DataDirBusyError(
          `data folder ${dataDir} is in use by process ${holder.pid}; stop it first (if no naaba runs, delete ${path})`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirBusyError(`could not lock data folder ${dataDir}`);
}

export const newAdminSecret = () => randomBytes(32).toString('base64url');

/** Leaves the note that lets key commands reach this server (owner-readable only). */
export function writeServerNote(dataDir: string, url: string, adminSecret: string): void {
  const note: ServerNote = { url, adminSecret, pid: process.pid };
  writeFileSync(join(dataDir, SERVER_NOTE), JSON.stringify(note), { mode: 0o600 });
}

export function removeServerNote(dataDir: string): void {
  rmSync(join(dataDir, SERVER_NOTE), { force: true });
}

/** The server running on this folder, if one is. */
export function runningServer(dataDir: string): ServerNote | undefined {
  const note = readJson<ServerNote>(join(dataDir, SERVER_NOTE));
  return note && alive(note.pid) ? note : undefined;
}
