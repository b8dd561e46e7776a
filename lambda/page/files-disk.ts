import { readFile } from 'node:fs/promises';

/**
 * The page's files from the repository: the HTML and stylesheet read from `web/`, the script built
 * from `web/src/` by esbuild in memory, so the local server and the tests never serve a stale build
 * (never the Lambda bundle, which inlines the built file: files-bundled.ts).
 */
export async function readPageFiles(): Promise<{ html: string; js: string; css: string }> {
  const read = (name: string) => readFile(new URL(`../../web/${name}`, import.meta.url), 'utf8');
  const { buildPageScript } = await import('../../web/build.js');
  const [html, js, css] = await Promise.all([read('index.html'), buildPageScript(), read('app.css')]);
  return { html, js, css };
}
