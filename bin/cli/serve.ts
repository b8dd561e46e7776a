import { Container } from '../../lambda/composition.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { newAdminSecret, removeServerNote, writeServerNote } from '../../lambda/dev/data-dir.js';
import { writeFolderRules } from '../../lambda/dev/folder-rules.js';
import { startLocalServer } from '../../lambda/dev/server.js';
import { startSweepTimer } from '../../lambda/dev/sweep-timer.js';
import { sweepSummary } from './db.js';
import { serveFolderRules } from './folder-config.js';
import { openDataDir } from './open.js';
import type { Terminal } from './terminal.js';

/** `naaba serve`: the local endpoint over the embedded database, until the terminal asks it to stop. */
export async function serve(t: Terminal, given: RuntimeConfig): Promise<void> {
  const served = serveFolderRules(given);
  const config = served.config;
  const local = config.database.kind === 'pglite';
  const release = local ? openDataDir(t, config.dataDir) : () => undefined;
  const container = new Container(config);
  // Listened for from the start: a stop asked for while the server starts still stops it cleanly.
  const stop = t.stopRequested();
  const stopped = new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    if (local) t.print(`naaba: opening the embedded database in ${config.dataDir} (first start creates and migrates it)`);
    await container.memory();
    if (served.record) writeFolderRules(config.dataDir, config.rules, config.rulesSource, new Date());
    if (served.replaced) t.print(`naaba: ${served.replaced}`);
    const adminSecret = newAdminSecret();
    // The scheduled Lambda's sweep, on a timer: expired memories leave while the server runs.
    const sweeps = startSweepTimer(container, config.sweep.everySeconds, (report) => {
      const changed =
        Object.values(report.expired).some((n) => n > 0) || report.trimmed > 0 || report.cells.built + report.cells.dropped > 0;
      if (changed) t.print(`naaba: ${sweepSummary(report)}`);
    });
    const server = await startLocalServer({
      host: config.listen.host,
      port: config.listen.port,
      container,
      adminSecret,
      sweep: sweeps.sweepNow,
    });
    if (local) writeServerNote(config.dataDir, server.url, adminSecret);
    const keys = (await (await container.keys()).list()).filter((k) => k.region === config.region && !k.revokedAt);
    t.print(`naaba: listening on ${server.url} (region ${config.region}); MCP endpoint for your client: ${server.url}/mcp`);
    t.print(`  health: ${server.url}/healthz   keys: npx naaba list-keys`);
    t.print(`  curation rules: ${config.rulesSource}; embedder: ${(await container.embedder()).name}`);
    t.print(
      config.sweep.everySeconds > 0
        ? `  expired memories are swept every ${config.sweep.everySeconds} s (NAABA_SWEEP_EVERY_SECONDS; 0 turns it off)`
        : '  the sweep timer is off (NAABA_SWEEP_EVERY_SECONDS=0): expired memories leave on writes or `npx naaba sweep`',
    );
    if (keys.length === 0) {
      t.print('  no key yet for this region. In another terminal:  npx naaba issue-key my-agent');
      t.print('  then give your MCP client the URL above and the header  Authorization: Bearer <token>');
    }
    await stopped;
    t.print('naaba: shutting down');
    await server.close();
    await sweeps.stop();
  } finally {
    if (local) removeServerNote(config.dataDir);
    await container.close();
    release();
  }
}
