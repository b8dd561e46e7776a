import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { environment } from '../../lambda/config/env.js';

export const NAABA_BIN = fileURLToPath(new URL('../../bin/naaba', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the committed `bin/naaba` in a child process on this Node, as a user would. */
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
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NAABA_BIN, 'serve', ...args], { env: { ...environment(), ...env }, cwd });
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
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => {
      output += d;
    });
    child.on('close', (code) => reject(new Error(`naaba serve exited (${code}) before listening:\n${output}`)));
  });
}
