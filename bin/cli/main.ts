import { ConfigError } from '../../lambda/config/errors.js';
import { KeyError } from '../../lambda/auth/keys.js';
import { DataDirBusyError } from '../../lambda/dev/data-dir.js';
import { MigrationError } from '../../lambda/adapters/pg/schema/migrate.js';
import { IsolationError } from '../../lambda/adapters/pg/pg-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import { DatabaseTlsError } from '../../lambda/config/database-tls.js';
import { MemoryError } from '../../lambda/memory/errors.js';
import { asksForHelp, parseArgs, UsageError } from './args.js';
import { COMMANDS, invocation } from './commands.js';
import { ConnectInterruptedError } from './connect.js';
import { docPath } from './docs.js';
import { expectedFailure, ServerGoneError } from './failures.js';
import { helpOf } from './help.js';
import { processTerminal, type Terminal } from './terminal.js';
import { TransferError } from './transfer.js';

export { processTerminal } from './terminal.js';

const USAGE = `naaba: agent memory that forgets on purpose

usage:
${Object.values(COMMANDS)
  .flatMap((c) => c.usage.map((line) => `  ${line}`))
  .join('\n')}

naaba COMMAND --help (or -h) says what one command does and what each of its options means, and
does nothing else. Every option has an environment twin (NAABA_PORT, NAABA_HOST, NAABA_DATA_DIR,
NAABA_REGION, NAABA_CONFIG, NAABA_DATABASE_URL, NAABA_ENDPOINT_URL, NAABA_TEXT_LANGUAGE,
NAABA_EMBEDDER): ${docPath('configuration.md')}
export and import: ${docPath('export-format.md')}
connect: ${docPath('clients.md')}`;

/** One command's usage, what it does and its options: `naaba CMD --help`, and its usage errors. */
const usageOf = (name: string): string => {
  const command = COMMANDS[name];
  const usage = (command?.usage ?? []).map((line) => `  ${line}`).join('\n');
  const help = command ? helpOf(name, [...command.values, ...command.switches]) : '';
  return `usage:\n${usage}\n\n${help}`;
};

async function run(argv: readonly string[], t: Terminal): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const about = rest[0];
    t.print(about && Object.hasOwn(COMMANDS, about) ? usageOf(about) : USAGE);
    return 0;
  }
  const spec = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!spec) throw new UsageError(`unknown command "${command}"`);
  if (asksForHelp(rest)) {
    t.print(usageOf(command));
    return 0;
  }
  return spec.run(invocation(t, spec, parseArgs(rest, spec)));
}

/** The exit code of a command stopped by Ctrl-C or SIGTERM; bin/naaba.js ends the process on it. */
export const INTERRUPTED = 130;

/**
 * Runs one CLI command; returns the process exit code. Known errors print one clear line. Everything
 * the command reads or writes of its process goes through `terminal` (the real one by default).
 */
export async function main(argv: readonly string[], terminal: Terminal = processTerminal()): Promise<number> {
  try {
    return await run(argv, terminal);
  } catch (error) {
    // Ctrl-C or SIGTERM during `connect`: the key it issued was taken back (or shown); 130, as a shell says of Ctrl-C.
    if (error instanceof ConnectInterruptedError) {
      terminal.warn(`naaba: ${error.message}`);
      return INTERRUPTED;
    }
    if (error instanceof UsageError) {
      const [command] = argv;
      const usage = command && Object.hasOwn(COMMANDS, command) ? usageOf(command) : USAGE;
      terminal.warn(`naaba: ${error.message}\n\n${usage}`);
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
      ServerGoneError,
    ].some((E) => error instanceof E);
    const expected = known ? (error as Error).message : expectedFailure(error);
    terminal.warn(`naaba: ${expected ?? String((error as Error)?.stack ?? error)}`);
    return 1;
  }
}
