import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWord } from '../../lambda/http/client-config.js';
import type { Environment } from './terminal.js';

/**
 * The words that run naaba again from where the person is, for every line naaba prints as a next
 * step: `npx naaba` in a clone or beside a project's install (npm finds the local bin), `naaba`
 * once installed globally, and the very `npx -y --package=…` line of the tarball route. Never a
 * bare `npx naaba` elsewhere: that asks the public registry for a package of that name, which
 * naaba does not own.
 */
export function howInvoked(env: Environment, cwd: string, here = import.meta.url): readonly string[] {
  // `npx --package=SPEC naaba` (one `-p` each): npm says which packages it was given.
  const packages = env.npm_command === 'exec' ? env.npm_config_package?.split('\n').filter(Boolean) : undefined;
  if (packages && packages.length > 0) {
    const absolute = (spec: string) => (/^\.{0,2}\//.test(spec) || /\.tgz$/.test(spec) ? resolve(cwd, spec) : spec);
    return ['npx', '-y', ...packages.map((spec) => `--package=${isAbsolute(spec) ? spec : absolute(spec)}`), 'naaba'];
  }
  // A clone runs these sources (bin/naaba.js); the package runs dist/, two folders below its root.
  if (existsSync(fileURLToPath(new URL('./main.ts', here)))) return ['npx', 'naaba'];
  const root = dirname(dirname(fileURLToPath(here)));
  const global = basename(dirname(root)) === 'node_modules' && basename(dirname(dirname(root))) === 'lib';
  return global ? ['naaba'] : ['npx', 'naaba'];
}

/** `naaba` as the person runs it, quoted for a shell: what every printed next step starts with. */
export const naabaCommand = (t: { readonly env: Environment; readonly cwd: string }): string =>
  howInvoked(t.env, t.cwd).map(shellWord).join(' ');
