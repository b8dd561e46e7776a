import { randomUUID } from 'node:crypto';
import { type Representative, type RuntimeQuery, runtimeQueries } from '../../bin/plan/catalogue.js';
import { main } from '../../bin/plan/cli.js';
import { seedRepresentative } from '../../bin/plan/seed.js';
import { verifyPlans } from '../../bin/plan/verify.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import * as memorySql from '../../lambda/adapters/pg/memory-sql.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { freshDatabase } from '../support/database.js';

test('the catalogue holds every statement of memory-sql.ts, as the store sends it to each engine', async () => {
  const rep = { region: 'r', userId: randomUUID(), dimensions: 4, now: new Date() };
  const texts = (await runtimeQueries(rep)).map((q) => q.text);
  const constants = Object.entries(memorySql).filter((e): e is [string, string] => typeof e[1] === 'string');
  expect(constants.length).toBeGreaterThanOrEqual(8);
  for (const [name, text] of constants) expect([name, texts.includes(text)]).toEqual([name, true]);
  // PostgreSQL and PGlite read partitions by cells (decision 0083); CockroachDB by its vector index.
  const recalls = (cells: boolean) => [
    memorySql.recallSql(1, 0, true, true, cells),
    memorySql.recallSql(1, 0, false, true, cells),
    memorySql.recallSql(2, 1, true, true, cells),
    memorySql.recallSql(1, 0, true, false, cells),
  ];
  for (const text of [
    ...recalls(true),
    memorySql.forgetAllSql(1, true),
    memorySql.countsSql(1),
    memorySql.browseSql(2, 1),
    memorySql.nextToGoSql(2, 1),
  ])
    expect(texts).toContain(text);
  const cockroach = (await runtimeQueries(rep, 'cockroach')).map((q) => q.text);
  for (const text of [...recalls(false), memorySql.forgetAllSql(1, false)]) expect(cockroach).toContain(text);
  expect(cockroach.filter((t) => t.includes('memory_cells'))).toEqual([]);
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
  const nearestArm = 'WHERE region = $1 AND user_id = $2::uuid AND kind = $3\n           ORDER BY embedding <=> $4::vector';
  const broken = (name: string, where: string): RuntimeQuery => {
    const query = neighbours();
    if (!query.text.includes(nearestArm)) throw new Error('NEIGHBOURS changed shape; update this test');
    return { ...query, name, text: query.text.replace(nearestArm, `${where} ORDER BY embedding <=> $4::vector`) };
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
    ['without the user', 'WHERE region = $1 AND kind = $3', [/ANN read filters on/, /does not use memories_user_kind/]],
    [
      'with an extra predicate',
      'WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND NOT pinned',
      [/ANN read filters on .*NOT pinned/],
    ],
    ['with a range on a prefix column', 'WHERE region = $1 AND user_id = $2::uuid AND kind >= $3', [/ANN read filters on/]],
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
        broken('neighbours without the user', 'WHERE region = $1 AND kind = $3'),
      ]);
      expect(code).toBe(1);
      expect(out.join('\n')).toMatch(/FAIL\s+neighbours without the user/);
      expect(out.join('\n')).toContain('some plans do not hold');
    },
    HEAVY_STEP_MS,
  );
});
