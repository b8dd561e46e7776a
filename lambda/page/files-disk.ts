import { readFile } from 'node:fs/promises';

/** The page's files read from the repository's `web/` folder: the local server and tests (never the Lambda bundle). */
export async function readPageFiles(): Promise<{ html: string; js: string; css: string }> {
  const read = (name: string) => readFile(new URL(`../../web/${name}`, import.meta.url), 'utf8');
  const [html, js, css] = await Promise.all([read('index.html'), read('app.js'), read('app.css')]);
  return { html, js, css };
}
