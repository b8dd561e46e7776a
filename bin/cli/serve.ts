import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ChosenBuffers, chooseBuffers } from '../../lambda/adapters/pg/pglite-buffers.js';
import { Container, pgliteDir } from '../../lambda/composition.js';
import { DEFAULT_DATA_DIR, DEFAULT_REGION } from '../../lambda/config/defaults.js';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { newAdminSecret, removeServerNote, writeServerNote } from '../../lambda/dev/data-dir.js';
import { writeFolderRules } from '../../lambda/dev/folder-rules.js';
import { startLocalServer } from '../../lambda/dev/server.js';
import { connectLine, shellWord } from '../../lambda/http/client-config.js';
import { startSweepTimer } from '../../lambda/dev/sweep-timer.js';
import { sweepSummary } from './db.js';
import { serveFolderRules } from './folder-config.js';
import { openDataDir } from './open.js';
import { howInvoked } from './invoked.js';
import type { Terminal } from './terminal.js';

/** What the banner says besides the configuration: where it listens, the embedder in force, whose keys there are. */
interface Served {
  readonly url: string;
  readonly embedder: string;
  /** The users with an active key in the region. */
  readonly users: readonly string[];
  /** The data folder's shared buffers, when the database is in one. */
  readonly buffers?: ChosenBuffers | undefined;
}

const mb = (bytes: number) => `${Math.ceil(bytes / 1024 / 1024)} MB`;

/** What the banner says of the shared buffers: their size and what chose it (decision 0155). */
const buffersLine = (b: ChosenBuffers) =>
  b.set
    ? `  shared buffers: ${b.mb} MB (NAABA_PGLITE_BUFFERS_MB)`
    : `  shared buffers: ${b.mb} MB, for ${b.dataBytes === 0 ? 'a new database' : `a database of ${mb(b.dataBytes)}`} (sized again at each start; NAABA_PGLITE_BUFFERS_MB sets them)`;

/**
 * The configuration with the shared buffers this start opens the folder with: chosen before it
 * opens, from the setting or the folder's data as it is now, so the banner can say which.
 */
function withBuffers(config: RuntimeConfig): { config: RuntimeConfig; buffers?: ChosenBuffers } {
  const db = config.database;
  if (db.kind !== 'pglite') return { config };
  const buffers = chooseBuffers(pgliteDir(config.dataDir), db.buffersMb);
  return { config: { ...config, database: { ...db, buffersMb: buffers.mb } }, buffers };
}

/** The folder and region flags a command run beside this server needs: none for the defaults. */
function sameServerFlags(config: RuntimeConfig): string[] {
  const data = config.database.kind === 'pglite' && config.dataDir !== DEFAULT_DATA_DIR ? ['--data', config.dataDir] : [];
  return [...data, ...(config.region === DEFAULT_REGION ? [] : ['--region', config.region])];
}

/**
 * The start-up banner: the page, the MCP URL, the embedder and configuration in force, and the
 * next step (a `naaba connect` line) for this server's own port, data folder and region.
 */
function banner(config: RuntimeConfig, served: Served): string[] {
  const { url, embedder, users, buffers } = served;
  const naaba = (config.commandLine ?? ['npx', 'naaba']).map(shellWord).join(' ');
  const flags = sameServerFlags(config).map(shellWord).join(' ');
  const beside = (command: string) => `${naaba} ${command}${flags ? ` ${flags}` : ''}`;
  const lines = [
    `naaba: listening on ${url} (region ${config.region}); MCP endpoint for your client: ${url}/mcp`,
    `  page: ${url}/  (sign in with a key to see, search, pin and forget what is remembered)`,
    `  curation rules: ${config.rulesSource === 'defaults' ? 'defaults, no configuration file' : config.rulesSource}; embedder: ${embedder}  (--config FILE and --embedder local|sentence choose them)`,
    ...(config.database.kind === 'pglite' ? [`  data folder: ${resolve(config.dataDir)}`] : []),
    ...(buffers ? [buffersLine(buffers)] : []),
    `  health: ${url}/healthz   keys: ${beside('list-keys')}`,
    config.sweep.everySeconds > 0
      ? `  expired memories are swept every ${config.sweep.everySeconds} s (NAABA_SWEEP_EVERY_SECONDS; 0 turns it off)`
      : `  the sweep timer is off (NAABA_SWEEP_EVERY_SECONDS=0): expired memories leave on writes or \`${naaba} sweep\``,
  ];
  if (config.database.kind !== 'pglite') return lines;
  const target = { ...(config.dataDir === DEFAULT_DATA_DIR ? {} : { dataDir: config.dataDir }), region: config.region };
  const [only] = users;
  const user = users.length > 1 ? 'USER_ID' : only;
  lines.push(`  connect a client, in another terminal:  ${connectLine('claude-code', user, target, config.commandLine)}`);
  if (users.length === 0) {
    lines.push('  no key yet for this region: that line makes the first, for a new user; or make one with');
    lines.push(
      `  ${beside('issue-key my-agent')}  and give your MCP client the URL above and the header  Authorization: Bearer <token>`,
    );
  } else if (users.length === 1) {
    lines.push(`  (a new key of user ${only}, the one that holds this region's keys: one memory for the client and the page)`);
  } else {
    lines.push(
      `  USER_ID: whose memories the client joins (${beside('list-keys')} shows each key's user; the page gives the line for yours)`,
    );
  }
  return lines;
}

/** What the first line says of the data folder: only the start that creates the database says so. */
const opening = (dataDir: string, created: boolean) =>
  created
    ? `creating the embedded database in ${dataDir} (this first start creates and migrates it)`
    : `opening the embedded database in ${dataDir}`;

/** What the separate `naaba migrate` of a new folder reads: this server's environment, with the embedder it chose (the schema holds its dimensions). */
const migrateEnv = (t: Terminal, config: RuntimeConfig) => ({
  ...t.env,
  NAABA_EMBEDDER: config.embedder.provider,
  NAABA_EMBEDDING_DIMENSIONS: String(config.embedder.dimensions),
  NAABA_LOG_LEVEL: 'SILENT',
});

/** `naaba serve`: the local endpoint over the embedded database, until the terminal asks it to stop. */
export async function serve(t: Terminal, given: RuntimeConfig): Promise<void> {
  const served = serveFolderRules(given);
  const { config, buffers } = withBuffers({ ...served.config, commandLine: howInvoked(t.env, t.cwd) });
  const local = config.database.kind === 'pglite';
  // Asked before the folder is opened: whether this start is the one that creates the database.
  const created = local && !existsSync(join(pgliteDir(config.dataDir), 'PG_VERSION'));
  if (created) t.print(`naaba: ${opening(config.dataDir, created)}`);
  // A new folder's database is created and migrated by a process of its own: creating it leaves
  // about 80 MiB behind in the process that did (decision 0155). Where that cannot run, or fails,
  // the server creates it itself, and says why if that fails too.
  if (created && t.migrateApart) await t.migrateApart(['--data', config.dataDir], migrateEnv(t, config));
  const release = local ? openDataDir(t, config.dataDir) : () => undefined;
  const container = new Container(config);
  // Listened for from the start: a stop asked for while the server starts still stops it cleanly.
  const stop = t.stopRequested();
  const stopped = new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    if (local && !created) t.print(`naaba: ${opening(config.dataDir, created)}`);
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
    const embedder = (await container.embedder()).name;
    const users = [...new Set(keys.map((k) => k.userId))];
    for (const line of banner(config, { url: server.url, embedder, users, buffers })) t.print(line);
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
