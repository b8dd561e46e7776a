/**
 * The memory page's static files: `GET /`, `/app.js`, `/app.css`, open like `/healthz`; every data
 * call they make goes to the authenticated `/api/…` (api.ts). Where the files come
 * from: docs/decisions/0053.
 */

export interface PageFiles {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

declare global {
  /** Set to `true` by esbuild's `define` in the Lambda bundle (lib/bundling.ts); absent under tsx and jest. */
  var NAABA_BUNDLED: boolean | undefined;
}

/** The page's Content-Security-Policy: nothing but this origin, no inline script or style, never framed. */
export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const COMMON = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } as const;

const ASSETS: Record<string, { file: keyof PageFiles; type: string; headers: Record<string, string> }> = {
  '/': {
    file: 'html',
    type: 'text/html; charset=utf-8',
    headers: { 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store' },
  },
  '/app.js': { file: 'js', type: 'text/javascript; charset=utf-8', headers: { 'cache-control': 'no-cache' } },
  '/app.css': { file: 'css', type: 'text/css; charset=utf-8', headers: { 'cache-control': 'no-cache' } },
};

/** The paths this module serves, as the stack declares them. */
export const PAGE_PATHS = Object.keys(ASSETS);

let loaded: Promise<PageFiles> | undefined;

/** Inlined text in the bundle; read from `web/` otherwise. Only the bundle's branch is bundled. */
function pageFiles(): Promise<PageFiles> {
  loaded ??= globalThis.NAABA_BUNDLED
    ? import('./files-bundled.js').then((m) => m.files)
    : import('./files-disk.js').then((m) => m.readPageFiles());
  return loaded;
}

/** The page file at `path` for a GET or HEAD, 405 for another method, undefined when `path` is no page file. */
export async function pageFile(method: string, path: string): Promise<Response | undefined> {
  const asset = ASSETS[path === '' ? '/' : path];
  if (!asset) return undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    return new Response('{"message":"use GET"}', { status: 405, headers: { 'content-type': 'application/json', allow: 'GET' } });
  }
  const body = (await pageFiles())[asset.file];
  return new Response(method === 'HEAD' ? null : body, {
    status: 200,
    headers: { 'content-type': asset.type, ...COMMON, ...asset.headers },
  });
}
