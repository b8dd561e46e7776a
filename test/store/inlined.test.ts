import { inlined } from '../../lambda/adapters/pg/inlined.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { params, sql } from '../../lambda/adapters/pg/sql/template.js';

/**
 * A queued write goes as one message of several statements, its values inlined as literals
 * (decision 0099): each value must reach the server exactly as the same value sent as a parameter.
 */
describe('values inlined into a message of statements', () => {
  let db: PgliteSqlClient;
  beforeAll(async () => {
    db = await PgliteSqlClient.open();
  });
  afterAll(async () => db.close());

  test('read back the same as parameters: quotes, backslashes, null, times, arrays, JSON, vectors', async () => {
    const p = params({
      quoted: "it's a 'test'; DROP TABLE x; --",
      slashes: 'C:\\temp\\new \\\\ end\\',
      nothing: null,
      at: new Date('2026-12-03T13:14:15.123Z'),
      terms: ['plain', 'with "quotes"', "o'brien", 'back\\slash', 'comma,brace}{'],
      counts: [1, 2, 3],
      json: JSON.stringify({ a: "x'y", b: ['\\'] }),
      vector: '[0.5,-1,3e-7]',
      flag: true,
      big: 2 ** 40,
      dollar: '$1 and $2',
    });
    const query = sql`SELECT ${p.quoted}::text AS quoted, ${p.slashes}::text AS slashes, ${p.nothing}::uuid AS nothing,
      ${p.at}::timestamptz AS at, ${p.terms}::text[] AS terms, ${p.counts}::int4[] AS counts, ${p.json}::jsonb AS json,
      ${p.vector}::text AS vector, ${p.flag}::bool AS flag, ${p.big}::int8::text AS big, ${p.dollar}::text AS dollar`;
    const [asParameters] = await db.query(query);
    const [asLiterals] = await db.query({ text: inlined(query), values: [] });
    expect(asLiterals).toEqual(asParameters);
    expect(asLiterals).toMatchObject({ quoted: "it's a 'test'; DROP TABLE x; --", dollar: '$1 and $2' });
  });
});
