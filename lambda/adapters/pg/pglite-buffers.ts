import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buffersForData } from '../../config/database.js';

/** The shared buffers a PGlite folder opens with, and what chose them. */
export interface ChosenBuffers {
  readonly mb: number;
  /** The bytes of the folder's database (its tables and indexes) when they were chosen. */
  readonly dataBytes: number;
  /** True when NAABA_PGLITE_BUFFERS_MB gave them, false when the folder's data did. */
  readonly set: boolean;
}

/** The entries of a folder; none when it does not exist. */
function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The bytes of the files directly in `dir`. */
function filesBytes(dir: string): number {
  let total = 0;
  for (const name of entries(dir)) {
    const stat = statSync(join(dir, name), { throwIfNoEntry: false });
    if (stat?.isFile()) total += stat.size;
  }
  return total;
}

/**
 * The shared buffers for the PGlite database in `pgdataDir` (decision 0155): `setMb` when the
 * setting gives it, else sized to the files of its largest database as they are now: naaba's own,
 * beside PostgreSQL's two templates of about 7 MB each, which nothing reads; the write-ahead log is
 * left out too. PostgreSQL takes the size when it starts, so a folder that grows keeps its
 * buffers until the next open.
 */
export function chooseBuffers(pgdataDir: string, setMb?: number): ChosenBuffers {
  const base = join(pgdataDir, 'base');
  const dataBytes = Math.max(0, ...entries(base).map((database) => filesBytes(join(base, database))));
  return setMb === undefined ? { mb: buffersForData(dataBytes), dataBytes, set: false } : { mb: setMb, dataBytes, set: true };
}
