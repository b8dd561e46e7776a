import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { environment } from '../../lambda/config/env.js';

/** A stream text is written to as is: `process.stdout`, or a test's buffer. */
export interface TextSink {
  write(text: string): unknown;
}

/** Environment variables as a command reads them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What a command is given of the process it runs in; {@link terminalOf} adds the line writers. */
export interface TerminalParts {
  /** Standard output: the command's answer, which a script may read. */
  readonly stdout: TextSink;
  /** Standard error: progress, warnings and errors, for a person. */
  readonly stderr: TextSink;
  /** The environment the settings are read from (flags override it by name). */
  readonly env: Environment;
  /**
   * Where the files a command names are found (FILE, --file, `.vscode/`). The data folder is not
   * among them: the database opens it relative to the process's own working directory.
   */
  readonly cwd: string;
  /** All of standard input, for `naaba import -`. */
  readStdin(): string;
  /**
   * Aborted when the person asks a long-running command to stop (Ctrl-C or SIGTERM for a process).
   * Only `serve`, and `connect` while it holds a key it issued, ask for it, so every other command
   * keeps Node's default of ending on Ctrl-C.
   */
  stopRequested(): AbortSignal;
  /**
   * Runs `naaba migrate ARGS` as a process of its own with `env`, and says whether it ended well: how
   * `serve` creates a new data folder's database, so that the server never holds what creating it
   * allocated (decision 0155). Absent where the commands run in-process (tests): `serve` creates the
   * database itself.
   */
  readonly migrateApart?: (args: readonly string[], env: Environment) => Promise<boolean>;
}

/**
 * What the command line reads and writes of its process: output, input, environment, working
 * directory and the request to stop. `main` takes one, so the commands run in-process (tests) as
 * they run from a shell (`processTerminal`), and no command touches `console` or global state.
 */
export interface Terminal extends TerminalParts {
  /** One line to standard output. */
  print(line: string): void;
  /** One line to standard error. */
  warn(line: string): void;
}

export function terminalOf(parts: TerminalParts): Terminal {
  return {
    ...parts,
    print: (line) => parts.stdout.write(`${line}\n`),
    warn: (line) => parts.stderr.write(`${line}\n`),
  };
}

/** The process's own streams, environment and signals: what `bin/naaba.js` runs the commands with. */
export function processTerminal(): Terminal {
  return terminalOf({
    stdout: process.stdout,
    stderr: process.stderr,
    env: environment(),
    cwd: process.cwd(),
    readStdin: () => readFileSync(0, 'utf8'),
    stopRequested: () => {
      const stop = new AbortController();
      // Listened for once each: a second Ctrl-C during shutdown ends the process as usual.
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      return stop.signal;
    },
    // The same program as this one (bin/naaba.js, from a clone or the package), with the same Node flags.
    migrateApart: (args, env) =>
      new Promise((resolve) => {
        const program = process.argv[1];
        if (program === undefined) return resolve(false);
        const child = spawn(process.execPath, [...process.execArgv, program, 'migrate', ...args], {
          env: { ...env },
          stdio: 'ignore',
        });
        child.once('error', () => resolve(false));
        child.once('exit', (code) => resolve(code === 0));
      }),
  });
}
