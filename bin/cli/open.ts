import { Container } from '../../lambda/composition.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { lockDataDir } from '../../lambda/dev/data-dir.js';

/**
 * Runs a command against the configured database. A local data folder is locked for the
 * duration (one process at a time); a database URL needs no lock.
 */
export async function withContainer<T>(config: RuntimeConfig, run: (container: Container) => Promise<T>): Promise<T> {
  const release = config.database.kind === 'pglite' ? lockDataDir(config.dataDir) : () => undefined;
  const container = new Container(config);
  try {
    return await run(container);
  } finally {
    await container.close();
    release();
  }
}
