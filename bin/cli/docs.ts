import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where one of naaba's documents is on this machine: `docs/` of the clone (beside bin/cli/) or of
 * the installed package (beside dist/), which ships the documents the command line names.
 */
export function docPath(name: string): string {
  for (const up of ['../../docs/', '../docs/']) {
    const path = fileURLToPath(new URL(`${up}${name}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  return `docs/${name}`;
}
