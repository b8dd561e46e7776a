import { CountingSqlClient } from '../../lambda/adapters/pg/sql-client.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { Container, installContainer } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config/env.js';
import { ManualClock } from '../support/clock.js';
import { freshDatabase } from '../support/database.js';
import type { AuthorizerContext } from './events.js';

/** The region the handlers under test serve. */
export const REGION = 'eu-central-1';

/**
 * What the exported handlers run on in these tests: the process-wide container they use, over a
 * migrated in-memory PGlite whose round trips are counted, and a clock that moves on request.
 */
export interface HandlerRuntime {
  readonly container: Container;
  readonly sql: CountingSqlClient;
  readonly clock: ManualClock;
  issue(name: string, region?: string): Promise<IssuedKey>;
  close(): Promise<void>;
}

export async function installRuntime(env: Record<string, string> = {}): Promise<HandlerRuntime> {
  // NAABA_ALLOWED_HOSTS as the region stack sets it for the MCP function (API Gateway checks Host).
  const config = loadConfig({ NAABA_LOG_LEVEL: 'SILENT', NAABA_REGION: REGION, NAABA_ALLOWED_HOSTS: '*', ...env });
  const db = await freshDatabase(config.embedder.dimensions);
  const sql = new CountingSqlClient(db);
  const clock = new ManualClock();
  const container = new Container(config, { sql, clock });
  installContainer(container);
  return {
    container,
    sql,
    clock,
    issue: async (name, region = REGION) => (await container.keys()).issue(name, region),
    close: async () => {
      installContainer(undefined);
      await db.close();
    },
  };
}

/** The authorizer context an Allow for this key puts in the proxy event. */
export function contextOf(key: IssuedKey): AuthorizerContext {
  return { userId: key.userId, region: key.region, agent: key.name, keyId: key.keyId };
}
