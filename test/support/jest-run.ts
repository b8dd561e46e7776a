import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { environment } from '../../lambda/config/env.js';

/**
 * `--flag value` and `--flag=value` pairs of the named flags, or what is wrong with the command
 * line in words (an unknown flag, a flag without its value).
 */
export function parseFlags<F extends string>(argv: readonly string[], flags: readonly F[]): Partial<Record<F, string>> | string {
  const options: Partial<Record<F, string>> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const value = inline ?? argv[++i];
    if (!flags.includes(flag.replace(/^--/, '') as F) || !flag.startsWith('--')) return `unknown argument ${flag}`;
    if (!value) return `${flag} needs a value`;
    options[flag.slice(2) as F] = value;
  }
  return options;
}

/** Runs jest in band on `target` with extra environment variables; the process exits with jest's code. */
export function runJest(target: string, extra: Record<string, string | undefined>): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const jest = fileURLToPath(new URL('../../node_modules/jest/bin/jest.js', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--runInBand', target],
    { cwd: root, env: { ...environment(), ...extra }, stdio: 'inherit' },
  );
  child.on('close', (code) => {
    process.exitCode = code ?? 1;
  });
}
