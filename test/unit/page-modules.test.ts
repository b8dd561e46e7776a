import { readdirSync, readFileSync } from 'node:fs';
import { buildPageScript } from '../../web/build.js';

/**
 * The page's modules (web/src/, decision 0138): one per section, none over 300 lines, built into one
 * script that holds no Node code, and none computing a rule the server decides.
 */

const SRC = new URL('../../web/src/', import.meta.url);
const modules = readdirSync(SRC).filter((n) => n.endsWith('.ts'));
const text = (name: string) => readFileSync(new URL(name, SRC), 'utf8');

test('one module per section of the page, plus the shared ones', () => {
  const sections = ['sign-in', 'overview', 'memories', 'compare', 'journal', 'over-time', 'next', 'import', 'connect'];
  const shared = ['api', 'dom', 'state', 'main'];

  expect([...sections, ...shared].filter((m) => !modules.includes(`${m}.ts`))).toEqual([]);
});

test('no module is over 300 lines', () => {
  const long = modules.map((m) => [m, text(m).split('\n').length] as const).filter(([, lines]) => lines > 300);

  expect(long).toEqual([]);
});

test('the page imports only types from lambda/: nothing of the server runs in the browser', () => {
  const imports = modules.flatMap((m) => [...text(m).matchAll(/^import (type )?[^;]*from '(\.\.\/\.\.\/lambda\/[^']+)'/gm)]);

  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((i) => i[1] !== 'type ').map((i) => i[2])).toEqual([]);
});

test('the page computes no pin limit or expiry: it reads the pins and the outlook the server sends', () => {
  const computing = modules.filter((m) => /pinLimit|ttlSeconds\s*\*|lastUsefulAt\)\s*\+/.test(text(m)));

  expect(computing).toEqual([]);
});

test('the built script is one classic script with no Node module in it', async () => {
  const script = await buildPageScript();

  expect(script).toContain('api/overview');
  expect(script).not.toMatch(/\brequire\(|from ['"]node:|^import /m);
});
