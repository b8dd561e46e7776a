import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileProblem } from './failures.js';
import { TransferError } from './transfer.js';

/**
 * A client's configuration file as `naaba connect --write` reads and replaces it: never through a
 * symbolic link, never a directory or a device, and replaced whole (a new file renamed over the old
 * one), so a crash leaves the old file or the new one, never half of each.
 */

/** The file as it is now: its text and permission bits, or nothing when there is no file yet. */
export interface ConfigFile {
  readonly text: string;
  readonly mode: number;
}

const refuse = (shown: string, what: string) =>
  new TransferError(`${shown} ${what}; nothing was written. Pass --file with the file itself`);

/** Reads the file at `path` (`shown` is how the person named it), refusing anything but a plain file. */
export function readConfigFile(path: string, shown: string): ConfigFile | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TransferError(`${fileProblem(shown, error) ?? `${shown} cannot be read`}; nothing was written`);
  }
  if (stat.isSymbolicLink())
    throw refuse(shown, `is a symbolic link (to ${readlinkSync(path)}); naaba does not write through links`);
  if (stat.isDirectory()) throw refuse(shown, 'is a directory, not a file');
  if (!stat.isFile()) throw refuse(shown, 'is not a plain file');
  try {
    return { text: readFileSync(path, 'utf8'), mode: stat.mode & 0o777 };
  } catch (error) {
    throw new TransferError(`${fileProblem(shown, error) ?? `${shown} cannot be read`}; nothing was written`);
  }
}

/**
 * Writes `text` to a new file beside `path` with `mode`, flushes it, and renames it over `path`.
 * Asynchronous, so a write that never ends (a folder under /proc) leaves the process able to hear
 * Ctrl-C and take back a key it issued for the file.
 */
export async function replaceAtomically(path: string, shown: string, text: string, mode: number): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // 'wx': the new name is this process's own, never a file or link someone left there.
    const file = await open(temporary, 'wx', mode);
    try {
      // The mode asked for, whatever the umask took away.
      await file.chmod(mode);
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    const problem = fileProblem((error as NodeJS.ErrnoException).path === temporary ? dirname(shown) : shown, error);
    if (!problem) throw error;
    throw new TransferError(`${problem}; nothing was written`);
  }
}
