import { Container } from '../../lambda/composition.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { newAdminSecret, removeServerNote, writeServerNote } from '../../lambda/dev/data-dir.js';
import { startLocalServer } from '../../lambda/dev/server.js';
import { openDataDir } from './open.js';

/** `naaba serve`: the local endpoint over the embedded database, until interrupted. */
export async function serve(config: RuntimeConfig): Promise<void> {
  const local = config.database.kind === 'pglite';
  const release = local ? openDataDir(config.dataDir) : () => undefined;
  const container = new Container(config);
  // Listened for from the start: a signal that arrives while the server starts still stops it cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    if (local) console.log(`naaba: opening the embedded database in ${config.dataDir} (first start creates and migrates it)`);
    await container.memory();
    const adminSecret = newAdminSecret();
    const server = await startLocalServer({ host: config.listen.host, port: config.listen.port, container, adminSecret });
    if (local) writeServerNote(config.dataDir, server.url, adminSecret);
    const keys = (await (await container.keys()).list()).filter((k) => k.region === config.region && !k.revokedAt);
    console.log(`naaba: listening on ${server.url} (region ${config.region}); MCP endpoint for your client: ${server.url}/mcp`);
    console.log(`  health: ${server.url}/healthz   keys: npx naaba list-keys`);
    if (keys.length === 0) {
      console.log('  no key yet for this region. In another terminal:  npx naaba issue-key my-agent');
      console.log('  then give your MCP client the URL above and the header  Authorization: Bearer <token>');
    }
    await stopped;
    console.log('naaba: shutting down');
    await server.close();
  } finally {
    if (local) removeServerNote(config.dataDir);
    await container.close();
    release();
  }
}
