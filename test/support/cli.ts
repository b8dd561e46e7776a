import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { environment } from '../../lambda/config/env.js';

export const NAABA_BIN = fileURLToPath(new URL('../../bin/naaba.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the committed `bin/naaba.js` in a child process on this Node, as a user would. */
export function runCli(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
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

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  stop(): Promise<number | null>;
}

/** Starts `naaba serve` and waits for the line that names its URL. */
export function startServe(args: readonly string[], env: Record<string, string> = {}, cwd?: string): Promise<ServeProcess> {
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
