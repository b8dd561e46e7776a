import { randomUUID } from 'node:crypto';
import { catalogueGaps, type Representative, type RuntimeQuery, runtimeQueries } from '../../bin/plan/catalogue.js';
import { main } from '../../bin/plan/cli.js';
import { seedRepresentative } from '../../bin/plan/seed.js';
import { verifyPlans } from '../../bin/plan/verify.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { freshDatabase } from '../support/database.js';

test('the catalogue sends every statement of statements/ on each engine, with the plan the statement declares', async () => {
  for (const engine of ['postgres', 'cockroach'] as const) {
    expect(await catalogueGaps(engine)).toEqual({ unsent: [], listedButSent: [] });
  }
  const rep = { region: 'r', userId: randomUUID(), dimensions: 4, now: new Date() };
  const postgres = await runtimeQueries(rep);
  const cockroach = await runtimeQueries(rep, 'cockroach');
  // PostgreSQL and PGlite read partitions by cells (decision 0083); CockroachDB by its vector index.
  const recall = (queries: RuntimeQuery[]) => queries.find((q) => q.name === 'recall: one kind');
  expect(recall(postgres)?.expect).toMatchObject({ cellsRead: true, lexicalSearch: true, followingRead: true });
  expect(recall(cockroach)?.expect).toMatchObject({ vectorSearch: true, lexicalSearch: true, followingRead: true });
  expect(recall(postgres)?.text).toContain('memory_cells');
  expect(cockroach.filter((q) => q.text.includes('memory_cells'))).toEqual([]);
  // Every statement's name is its file: <use case>/<name>.
  for (const q of postgres)
    expect(q.statement).toMatch(/^(curation|recall|page|transfer|maintenance|keys|oauth|schema)\/[a-z-]+$/);
});

test(
  'npm run verify:plan (no --url) passes on the local engine and checks every runtime query',
  async () => {
    const out: string[] = [];
    const code = await main([], (line) => out.push(line));
    const report = out.join('\n');
    expect(code).toBe(0);
    expect(report).toContain('query plans on postgres:');
    expect(report).toContain('every plan holds');
    for (const name of [
      'neighbours',
      'recall: kinds with and without expiry',
      'remember',
      'forget all',
      'sweep expired',
      'key by token hash',
    ]) {
      expect(report).toMatch(new RegExp(`ok\\s+${name}`));
    }
    expect(report).not.toContain('FAIL');
  },
  HEAVY_STEP_MS,
); // seeds 9,000 memories and explains every statement: a minute or more on a busy machine

test('an unknown option is a usage error, not a verdict', async () => {
  const out: string[] = [];
  expect(await main(['--bogus'], (line) => out.push(line))).toBe(2);
  expect(out.join('\n')).toContain('usage: npm run verify:plan');
});

describe('deliberately broken queries fail the verification', () => {
  let db: PgliteSqlClient;
  let real: RuntimeQuery[];

  beforeAll(async () => {
    db = await freshDatabase(256);
    const rep: Representative = { region: 'local', userId: randomUUID(), dimensions: 256, now: new Date() };
    await seedRepresentative(db, rep);
    real = await runtimeQueries(rep);
  }, HEAVY_STEP_MS);
  afterAll(async () => db.close());

  const neighbours = () => {
    const query = real.find((q) => q.name === 'neighbours');
    if (!query) throw new Error('the catalogue lost the neighbours query');
    return query;
  };
  const nearestArm =
    /WHERE region = (\$\d+) AND user_id = (\$\d+)::uuid AND kind = (\$\d+)\n\s+ORDER BY embedding <=> (\$\d+)::vector/;
  /** The neighbours read with its WHERE clause rewritten: `where` names the region, user and kind {R}, {U} and {K}. */
  const broken = (name: string, where: string): RuntimeQuery => {
    const query = neighbours();
    const found = nearestArm.exec(query.text);
    if (!found) throw new Error('the neighbours statement changed shape; update this test');
    const [, region = '', user = '', kind = '', vector = ''] = found;
    const clause = where.replace('{R}', region).replace('{U}', user).replace('{K}', kind);
    return { ...query, name, text: query.text.replace(nearestArm, () => `${clause} ORDER BY embedding <=> ${vector}::vector`) };
  };

  test(
    'the real statements pass on the same database',
    async () => {
      const report = await verifyPlans(db, real);
      expect(report.verdicts.filter((v) => v.problems.length > 0)).toEqual([]);
    },
    HEAVY_STEP_MS,
  );

  test.each([
    ['without the user', 'WHERE region = {R} AND kind = {K}', [/ANN read filters on/, /does not use memories_user_kind/]],
    [
      'with an extra predicate',
      'WHERE region = {R} AND user_id = {U}::uuid AND kind = {K} AND NOT pinned',
      [/ANN read filters on .*NOT pinned/],
    ],
    ['with a range on a prefix column', 'WHERE region = {R} AND user_id = {U}::uuid AND kind >= {K}', [/ANN read filters on/]],
  ])('a vector read %s', async (name, where, expected) => {
    const report = await verifyPlans(db, [broken(name, where)]);
    expect(report.ok).toBe(false);
    const problems = report.verdicts[0]?.problems.join('\n') ?? '';
    for (const pattern of expected) expect(problems).toMatch(pattern);
  });

  test(
    'the command fails (exit 1) when a broken query rides along, and names it',
    async () => {
      const out: string[] = [];
      const code = await main([], (line) => out.push(line), [
        broken('neighbours without the user', 'WHERE region = {R} AND kind = {K}'),
      ]);
      expect(code).toBe(1);
      expect(out.join('\n')).toMatch(/FAIL\s+neighbours without the user/);
      expect(out.join('\n')).toContain('some plans do not hold');
    },
    HEAVY_STEP_MS,
  );
});
