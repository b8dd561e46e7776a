import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../bin/cli/main.js';
import { type Terminal, type TerminalParts, terminalOf } from '../../bin/cli/terminal.js';
import { installContainer } from '../../lambda/composition.js';
import { environment } from '../../lambda/config/env.js';

export const NAABA_BIN = fileURLToPath(new URL('../../bin/naaba.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A `naaba serve` that is listening: in this process ({@link startServe}) or in a child ({@link startServeBinary}). */
export interface RunningServe {
  readonly url: string;
  /** Standard output and error so far, in the order they were written. */
  readonly output: () => string;
  /** Asks it to stop, as Ctrl-C would, and resolves to its exit code. */
  stop(): Promise<number | null>;
}

export interface ServeProcess extends RunningServe {
  readonly child: ChildProcess;
}

interface Captured {
  readonly terminal: Terminal;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly output: () => string;
}

/**
 * A terminal that keeps what a command writes, with `env` over this process's environment (as a
 * child would inherit it) and a stop the test controls. Standard input is empty (`< /dev/null`).
 */
function captured(
  env: Record<string, string>,
  cwd: string,
  stop: AbortSignal,
  onWrite = (_output: string) => {},
  migrateApart?: TerminalParts['migrateApart'],
): Captured {
  let stdout = '';
  let stderr = '';
  let output = '';
  const sink = (add: (text: string) => void) => ({
    write: (text: string) => {
      add(text);
      output += text;
      onWrite(output);
      return true;
    },
  });
  const terminal = terminalOf({
    stdout: sink((text) => {
      stdout += text;
    }),
    stderr: sink((text) => {
      stderr += text;
    }),
    env: { ...environment(), ...env },
    cwd,
    readStdin: () => '',
    stopRequested: () => stop,
    ...(migrateApart && { migrateApart }),
  });
  return { terminal, stdout: () => stdout, stderr: () => stderr, output: () => output };
}

/**
 * Opening a data folder sets the process's umask to 077 (lambda/dev/data-dir.ts), meant for the
 * naaba process; in-process that is the test worker, so the umask it had is put back once no
 * command runs any more.
 */
let commandsRunning = 0;
let workerUmask = 0;
async function keepingUmask<T>(run: () => Promise<T>): Promise<T> {
  if (commandsRunning === 0) workerUmask = process.umask();
  commandsRunning += 1;
  try {
    return await run();
  } finally {
    commandsRunning -= 1;
    if (commandsRunning === 0) process.umask(workerUmask);
  }
}

/**
 * Runs one command through the CLI's `main` in this process, with `env` over this process's
 * environment, as a user would run `naaba ARGS`: the same exit code and output, without a child
 * process. A data folder is opened relative to this process's working directory, so pass absolute
 * ones. Only a `serve` that fails to start returns: for a server use {@link startServe}.
 */
export async function runCli(args: readonly string[], env: Record<string, string> = {}, cwd = process.cwd()): Promise<CliResult> {
  const io = captured(env, cwd, new AbortController().signal);
  const code = await keepingUmask(() => main(args, io.terminal));
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/**
 * Starts `naaba serve` in this process and waits for the line that names its URL; `stop` asks it
 * to stop as Ctrl-C would. The local server installs its container for the exported handlers, so
 * one endpoint per process: a test that also runs `startTestEndpoint` serves with {@link startServeBinary}.
 */
export async function startServe(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd = process.cwd(),
  migrateApart?: TerminalParts['migrateApart'],
): Promise<RunningServe> {
  const stop = new AbortController();
  let heard: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => {
    heard = resolve;
  });
  const io = captured(
    env,
    cwd,
    stop.signal,
    (output) => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) heard(match[1]);
    },
    migrateApart,
  );
  const exited = keepingUmask(() => main(['serve', ...args], io.terminal));
  const failed = exited.then((code) =>
    Promise.reject(new Error(`naaba serve exited (${code}) before listening:\n${io.output()}`)),
  );
  const url = await Promise.race([listening, failed]);
  return {
    url,
    output: io.output,
    stop: async () => {
      stop.abort();
      const code = await exited;
      installContainer(undefined);
      return code;
    },
  };
}

/** Runs the committed `bin/naaba.js` in a child process on this Node: what proves the real binary. */
export function runBinary(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NAABA_BIN, ...args], { env: { ...environment(), ...env }, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `bin/naaba.js serve` in a child process and waits for the line that names its URL; `stop` sends SIGTERM. */
export function startServeBinary(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<ServeProcess> {
  return waitForListening(spawn(process.execPath, [NAABA_BIN, 'serve', ...args], { env: { ...environment(), ...env }, cwd }));
}

/** Runs `npm start -- ARGS` in the checkout, as the README tells a new user to; its process group is stopped after. */
export function startNpmStart(args: readonly string[], cwd: string): Promise<ServeProcess> {
  const child = spawn('npm', ['start', '--', ...args], { env: environment(), cwd, detached: true });
  return waitForListening(child, () => process.kill(-(child.pid ?? 0), 'SIGTERM'));
}

function waitForListening(child: ChildProcess, kill = () => child.kill('SIGTERM')): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const onData = (d: Buffer) => {
      output += d;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        resolve({
          url: match[1],
          child,
          output: () => output,
          stop: async () => {
            kill();
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => {
      output += d;
    });
    child.on('close', (code) => reject(new Error(`naaba serve exited (${code}) before listening:\n${output}`)));
  });
}

/** A key as `naaba list-keys --json` prints it: what the CLI tests compare. */
export interface ListedKey {
  key_id: string;
  name: string;
  user_id: string;
  revoked_at: string | null;
}

/** Every key `list-keys --json` prints, through the test's own way of running the command. */
export async function listedKeys(cli: (args: string[]) => Promise<CliResult>): Promise<ListedKey[]> {
  return JSON.parse((await cli(['list-keys', '--json'])).stdout) as ListedKey[];
}
