import { loadConfig } from '../../lambda/config/env.js';
import { ConfigError } from '../../lambda/config/errors.js';
import { KeyError } from '../../lambda/auth/keys.js';
import { DataDirBusyError } from '../../lambda/dev/data-dir.js';
import { MigrationError } from '../../lambda/adapters/pg/schema/migrate.js';
import { IsolationError } from '../../lambda/adapters/pg/pg-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import { DatabaseTlsError } from '../../lambda/adapters/pg/tls.js';
import { MemoryError } from '../../lambda/memory/errors.js';
import { parseArgs, UsageError } from './args.js';
import { check, embed } from './check.js';
import { migrateCommand, reembedCommand, sweepCommand } from './db.js';
import { connectCommand } from './connect.js';
import { issueKey, listKeys, revokeKey } from './keys.js';
import { serve } from './serve.js';
import { processTerminal, type Terminal } from './terminal.js';

export { processTerminal } from './terminal.js';
import { exportCommand, importCommand, TransferError } from './transfer.js';

const USAGE = `naaba: agent memory that forgets on purpose

usage:
  naaba serve [--port 8000] [--host 127.0.0.1] [--data DIR] [--region R] [--config FILE] [--embedder local|sentence]
  naaba issue-key NAME [--region R] [--data DIR | --url URL] [--user USER_ID] [--endpoint URL] [--json]
  naaba revoke-key KEY_ID [--data DIR]
  naaba list-keys [--json] [--data DIR]
  naaba check [--probe]
  naaba embed "text"
  naaba migrate [--data DIR | --url URL [--db-regions PRIMARY,OTHER...] [--runtime-roles mcp=ROLE,authorizer=ROLE,sweeper=ROLE|none] [--contract]] [--batch 5000]
  naaba migrate --check [--data DIR | --url URL] [--json]
  naaba sweep [--data DIR] [--region R]
  naaba reembed [--data DIR | --url URL] [--language neutral|english] [--embedder NAME] [--batch 100]
  naaba export [FILE] [--endpoint URL | --data DIR | --url URL]            (as NAABA_KEY's owner)
  naaba import FILE [--kind KIND] [--endpoint URL | --data DIR | --url URL] (as NAABA_KEY's owner)
  naaba connect claude-code|cursor|vscode|json [--write [--file PATH]] [--issue NAME] [--endpoint URL]

Every option has an environment twin (NAABA_PORT, NAABA_HOST, NAABA_DATA_DIR, NAABA_REGION,
NAABA_CONFIG, NAABA_DATABASE_URL, NAABA_ENDPOINT_URL, NAABA_TEXT_LANGUAGE, NAABA_EMBEDDER); see
docs/configuration.md.
export, import and connect: docs/export-format.md and docs/clients.md.`;

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`expected exactly one ${what}`);
  return positionals[0];
}

async function run(argv: readonly string[], t: Terminal): Promise<number> {
  const [command, ...rest] = argv;
  const args = parseArgs(rest, ['json', 'probe', 'help', 'check', 'contract', 'write']);
  const { user, batch, file, issue, kind, ...settings } = args.settings;
  const config = () => loadConfig(t.env, settings);
  switch (command) {
    case 'serve':
      await serve(t, config());
      return 0;
    case 'issue-key':
      await issueKey(t, config(), settings, one(args.positionals, 'key NAME'), user, args.switches.has('json'));
      return 0;
    case 'revoke-key':
      await revokeKey(t, config(), one(args.positionals, 'KEY_ID'));
      return 0;
    case 'list-keys':
      await listKeys(t, config(), args.switches.has('json'));
      return 0;
    case 'check':
      return (await check(t, settings, { probe: args.switches.has('probe') })) ? 0 : 1;
    case 'embed':
      await embed(t, config(), one(args.positionals, 'quoted text'));
      return 0;
    case 'migrate':
      return migrateCommand(t, config(), settings, {
        check: args.switches.has('check'),
        contract: args.switches.has('contract'),
        json: args.switches.has('json'),
        batch,
      });
    case 'sweep':
      await sweepCommand(t, config());
      return 0;
    case 'reembed':
      await reembedCommand(t, config(), batch);
      return 0;
    case 'export':
      if (args.positionals.length > 1) throw new UsageError('expected at most one FILE');
      await exportCommand(t, config(), settings, args.positionals[0]);
      return 0;
    case 'import':
      await importCommand(t, config(), settings, one(args.positionals, 'FILE (or - for standard input)'), kind);
      return 0;
    case 'connect':
      await connectCommand(t, config(), settings, one(args.positionals, 'CLIENT'), {
        write: args.switches.has('write'),
        file,
        issue,
      });
      return 0;
    case undefined:
    case 'help':
    case '--help':
      t.print(USAGE);
      return 0;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * Runs one CLI command; returns the process exit code. Known errors print one clear line. Everything
 * the command reads or writes of its process goes through `terminal` (the real one by default).
 */
export async function main(argv: readonly string[], terminal: Terminal = processTerminal()): Promise<number> {
  try {
    return await run(argv, terminal);
  } catch (error) {
    if (error instanceof UsageError) {
      terminal.warn(`naaba: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    const known = [
      ConfigError,
      KeyError,
      DataDirBusyError,
      SchemaError,
      MemoryError,
      DatabaseTlsError,
      IsolationError,
      MigrationError,
      TransferError,
    ].some((E) => error instanceof E);
    terminal.warn(`naaba: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}`);
    return 1;
  }
}
