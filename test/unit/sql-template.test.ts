import {
  join,
  Param,
  param,
  params,
  render,
  type SqlFragment,
  sql,
  toQuery,
  verbatim,
} from '../../lambda/adapters/pg/sql/template.js';

describe('sql template (decision 0084)', () => {
  test('a parameter is a numbered placeholder, its value sent beside the text', () => {
    const region = param('region', 'eu-central-1');
    const q = render(sql`SELECT 1 FROM memories WHERE region = ${region}`);
    expect(q).toEqual({ text: 'SELECT 1 FROM memories WHERE region = $1', values: ['eu-central-1'] });
  });

  test('the same parameter has the same number wherever it appears, numbered in order of first use', () => {
    const a = param('a', 'A');
    const b = param('b', 'B');
    const q = render(sql`${b} ${a} ${b} ${sql`(${a}, ${b})`}`);
    expect(q).toEqual({ text: '$1 $2 $1 ($2, $1)', values: ['B', 'A'] });
  });

  test('two parameters of equal name and value are still two placeholders: identity, not equality, numbers them', () => {
    const q = render(sql`${param('x', 1)} = ${param('x', 1)}`);
    expect(q).toEqual({ text: '$1 = $2', values: [1, 1] });
  });

  test('a nested fragment is spliced as text with its parameters renumbered into the whole', () => {
    const inner = sql`kind = ${param('kind', 'fact')}`;
    const q = render(sql`WHERE user_id = ${param('u', 'U')} AND ${inner}`);
    expect(q).toEqual({ text: 'WHERE user_id = $1 AND kind = $2', values: ['U', 'fact'] });
  });

  test.each<[string, unknown]>([
    ['a string', 'x; DROP TABLE memories'],
    ['a number', 1],
    ['null', null],
    ['a plain object', { text: 'x' }],
  ])('%s spliced without param() is refused', (_, value) => {
    const raw = sql as unknown as (s: TemplateStringsArray, ...v: unknown[]) => SqlFragment;
    expect(() => raw`SELECT ${value}`).toThrow(/wrap a value with param\(\)/);
  });

  test('verbatim text and join: the code’s own text, joined by a separator', () => {
    const columns = join([verbatim('id'), verbatim('kind'), sql`${param('p', 3)}`]);
    expect(render(columns)).toEqual({ text: 'id, kind, $1', values: [3] });
    expect(render(join([verbatim('a'), verbatim('b')], ' AND ')).text).toBe('a AND b');
    expect(render(join([])).text).toBe('');
  });

  test('params names each input by its path, nested groups included, and leaves dates and arrays as values', () => {
    const when = new Date(0);
    const p = params({ scope: { region: 'r', userId: 'u' }, at: when, ids: ['a'], none: null });
    expect(p.scope.region).toBeInstanceOf(Param);
    expect([p.scope.region.name, p.scope.userId.name, p.at.name, p.ids.name, p.none.name]).toEqual([
      'scope.region',
      'scope.userId',
      'at',
      'ids',
      'none',
    ]);
    expect([p.at.value, p.ids.value, p.none.value]).toEqual([when, ['a'], null]);
    // One parameter per input: used twice, it is sent once.
    expect(render(sql`${p.scope.region} ${p.scope.region}`)).toEqual({ text: '$1 $1', values: ['r'] });
  });

  test('a fragment reads its own text and values; toQuery names the statement it renders', () => {
    const fragment = sql`SELECT ${param('n', 2)}`;
    expect([fragment.text, fragment.values]).toEqual(['SELECT $1', [2]]);
    expect(toQuery(fragment)).toEqual({ text: 'SELECT $1', values: [2] });
    const named = toQuery(fragment, { name: 'schema/any' });
    expect(named).toEqual({ text: 'SELECT $1', values: [2], statement: { name: 'schema/any' } });
  });
});
