/**
 * The page's files inlined as text by esbuild's `text` import attribute: only the Lambda bundle
 * loads this module (files.ts), so the shipped function needs no file on disk. The script is the
 * build of web/src/ that `node web/build.js` wrote before bundling (decision 0138).
 */
// @ts-expect-error -- a browser script built from web/src/, not a module of this program: esbuild inlines its text.
import js from '../../web/dist/app.js' with { type: 'text' };
import css from '../../web/app.css' with { type: 'text' };
import html from '../../web/index.html' with { type: 'text' };

export const files = { html, js: js as string, css };
