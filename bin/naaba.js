#!/usr/bin/env node
// The naaba command line. Installed from the package (npm pack, npx), it runs the JavaScript that
// `npm run build` bundled into dist/ (bin/build-package.js). In a clone the TypeScript sources are
// here: they run through tsx (a devDependency), so the CLI works right after `npm ci` and never runs
// a stale build.
import { existsSync } from 'node:fs';

const sources = new URL('./cli/main.ts', import.meta.url);
let cli;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(sources.href);
} else {
  cli = await import(new URL('../dist/cli.js', import.meta.url).href);
}
// The commands write to this process's streams and stop on its signals (bin/cli/terminal.ts).
process.exitCode = await cli.main(process.argv.slice(2), cli.processTerminal());
// An interrupted command may leave behind a file system call that never ends (a folder under /proc).
if (process.exitCode === cli.INTERRUPTED) process.exit();
