import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AnyStatement, STATEMENTS } from '../../lambda/adapters/pg/statements/index.js';
import { REPO_ROOT } from '../../lib/bundling.js';

const FOLDER = join(REPO_ROOT, 'lambda', 'adapters', 'pg', 'statements');

/** A value a module exports that is a statement (`statement()` makes objects with a name and a query). */
const isStatement = (value: unknown): value is AnyStatement =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { name?: unknown }).name === 'string' &&
  typeof (value as { query?: unknown }).query === 'function';

/** Every statement the folder's files export, with the file that exports it. */
async function statementsInFolder(): Promise<{ file: string; statement: AnyStatement }[]> {
  const files = readdirSync(FOLDER, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .sort();
  const found: { file: string; statement: AnyStatement }[] = [];
  for (const file of files) {
    const module: Record<string, unknown> = await import(`../../lambda/adapters/pg/statements/${file.replace(/\.ts$/, '.js')}`);
    for (const value of Object.values(module)) if (isStatement(value)) found.push({ file, statement: value });
  }
  return found;
}

describe('the statement registry (statements/index.ts) and its folder', () => {
  test('lists every statement the folder holds, each once, and nothing else', async () => {
    const inFolder = await statementsInFolder();
    expect(inFolder.length).toBeGreaterThan(90);
    const listed = new Set(STATEMENTS);
    expect(inFolder.filter(({ statement }) => !listed.has(statement)).map(({ file }) => file)).toEqual([]);
    const folderSet = new Set(inFolder.map(({ statement }) => statement));
    expect(STATEMENTS.filter((s) => !folderSet.has(s)).map((s) => s.name)).toEqual([]);
    expect(new Set(STATEMENTS.map((s) => s.name)).size).toBe(STATEMENTS.length);
  });

  test('each statement is named for its file: <use case>/<name>', async () => {
    const misnamed = (await statementsInFolder())
      .filter(({ file, statement }) => statement.name !== file.replace(/\.ts$/, ''))
      .map(({ file, statement }) => `${file}: ${statement.name}`);
    expect(misnamed).toEqual([]);
  });
});
