import { Container } from '../../lambda/composition.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { lockDataDir, makePrivate } from '../../lambda/dev/data-dir.js';
import type { Terminal } from './terminal.js';

/** Locks a local data folder and repairs its modes, saying so when it had to (an older naaba left them open). */
export function openDataDir(t: Terminal, dataDir: string): () => void {
  const release = lockDataDir(dataDir);
  const changed = makePrivate(dataDir);
  if (changed > 0) t.warn(`naaba: ${dataDir} was readable by other users; made ${changed} files and folders private (0700/0600)`);
  return release;
}

/**
 * Runs a command against the configured database. A local data folder is locked for the
 * duration (one process at a time); a database URL needs no lock.
 */
export async function withContainer<T>(
  t: Terminal,
  config: RuntimeConfig,
  run: (container: Container) => Promise<T>,
): Promise<T> {
  const release = config.database.kind === 'pglite' ? openDataDir(t, config.dataDir) : () => undefined;
  const container = new Container(config, { alone: config.database.kind === 'pglite' });
  try {
    return await run(container);
  } finally {
    await container.close();
    release();
  }
}
