import fc from 'fast-check';
import { expression, orderBy, predicate, SQL } from '../../lambda/adapters/pg/sql/policy.js';
import { param, render, sql, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import { all, any, not, pinned, spared, usefulSinceCutoff } from '../../lambda/memory/policy/condition.js';
import { EVICTABLE, EVICTION_ORDER, excessFor, excessIn, fitsWithoutEvictionIn } from '../../lambda/memory/policy/eviction.js';
import { EXPIRED, expiresAfter, expiresAfterIn, inExpiryIndexIn, LIVE } from '../../lambda/memory/policy/expiry.js';
import { isRelated, relatedIn } from '../../lambda/memory/policy/floor.js';
import { VALUES } from '../../lambda/memory/policy/formula.js';
import {
  pinAllowed,
  pinAllowedIn,
  pinnedAfter,
  pinnedAfterIn,
  pinsFit,
  setPinnedAllowed,
  setPinnedAllowedIn,
} from '../../lambda/memory/policy/pins.js';
import { keptPlaces, keptPlacesIn } from '../../lambda/memory/policy/recency.js';
import { SUPERSEDED } from '../../lambda/memory/policy/supersession.js';

const text = (f: Parameters<typeof render>[0]) => render(f).text;
const cutoff = param('cutoff', new Date(0) as Date | null);
const region = param('region', 'eu-central-1');

describe('sql/policy: conditions as predicates', () => {
  test.each<[string, Parameters<typeof predicate>, string]>([
    [
      'live, one cutoff that may be null',
      [LIVE, 'k', { cutoff: { one: cutoff } }],
      '(k.pinned OR ($1::timestamptz IS NULL OR k.last_useful_at >= $1::timestamptz))',
    ],
    [
      'expired: the negation pushed down to the columns',
      [EXPIRED, 'k', { cutoff: { one: cutoff } }],
      '(NOT k.pinned AND ($1::timestamptz IS NOT NULL AND k.last_useful_at < $1::timestamptz))',
    ],
    [
      'live, a cutoff known to be set',
      [LIVE, undefined, { cutoff: { set: param('c', new Date(0)) } }],
      '(pinned OR last_useful_at >= $1::timestamptz)',
    ],
    ['live, no cutoff: every memory is', [LIVE, 'm', {}], 'true'],
    ['expired, no cutoff: none is', [EXPIRED, 'm', {}], 'false'],
    ['live, no kind with a TTL among those read', [LIVE, 'm', { cutoff: { perKind: [] } }], 'true'],
    [
      'live, one cutoff per kind',
      [LIVE, 'm', { cutoff: { perKind: [{ kind: param('k', 'session'), cutoff: param('c', new Date(0)) }] } }],
      '(m.pinned OR CASE m.kind WHEN $1 THEN m.last_useful_at >= $2::timestamptz ELSE true END)',
    ],
    ['evictable, nothing spared', [EVICTABLE, 'l', {}], 'NOT l.pinned'],
    [
      'evictable, sparing the memory contradicted',
      [EVICTABLE, 'l', { spared: param('s', null as string | null) }],
      '(NOT l.pinned AND ($1::uuid IS NULL OR l.id <> $1::uuid))',
    ],
    ['spared', [spared, 'l', { spared: param('s', 'x') }], '($1::uuid IS NOT NULL AND l.id = $1::uuid)'],
    [
      'superseded: the replacement must exist',
      [SUPERSEDED, 't', { region }],
      '(t.superseded_by IS NOT NULL AND EXISTS (SELECT 1 FROM memories AS newer WHERE newer.region = $1 AND newer.id = t.superseded_by))',
    ],
    ['a constant that decides the whole wins', [any(pinned, not(all())), 'm', {}], 'm.pinned'],
    ['all of nothing holds', [all(), 'm', {}], 'true'],
    ['the useful-since test alone, no cutoff', [not(usefulSinceCutoff), 'm', {}], 'false'],
  ])('%s', (_, args, expected) => {
    expect(text(predicate(...args))).toBe(expected);
  });

  test('the superseded test needs the region and an alias: refused without either', () => {
    expect(() => predicate(SUPERSEDED, undefined, { region })).toThrow(/region and an alias/);
    expect(() => predicate(SUPERSEDED, 't', {})).toThrow(/region and an alias/);
  });

  test('eviction order: superseded first, then least recently useful, then id', () => {
    expect(text(orderBy(EVICTION_ORDER, 'l', { region }))).toBe(
      'CASE WHEN (l.superseded_by IS NOT NULL AND EXISTS (SELECT 1 FROM memories AS newer WHERE newer.region = $1 AND newer.id = l.superseded_by)) THEN 0 ELSE 1 END, l.last_useful_at, l.id',
    );
    expect(text(orderBy(['lastUsefulAt', 'id']))).toBe('last_useful_at, id');
  });
});

describe('sql/policy: rules of counts and flags as expressions', () => {
  const n = (name: string) => verbatim(name);

  test('constants fold: a truth the statement knows never reaches the text', () => {
    expect(text(expression(SQL.or(false, n('a'))))).toBe('a');
    expect(text(expression(SQL.or(true, n('a'))))).toBe('true');
    expect(text(expression(SQL.and(true, n('a'), n('b'))))).toBe('(a AND b)');
    expect(text(expression(SQL.and(false, n('a'))))).toBe('false');
    expect(text(expression(SQL.not(true)))).toBe('false');
    expect(text(expression(SQL.when(false, n('x'), n('y'))))).toBe('y');
    expect(text(expression(SQL.when(n('t'), true, n('y'))))).toBe('CASE WHEN t THEN true ELSE y END');
  });

  test.each<[string, () => ReturnType<typeof expression>, string]>([
    [
      'the pin limit, a new memory',
      () => expression(pinAllowedIn(SQL, { pin: n('pin'), alreadyPinned: false }, n('have'), n('limit'))),
      '(NOT pin OR (have < limit))',
    ],
    [
      'the pin limit, a restatement',
      () => expression(pinAllowedIn(SQL, { pin: n('pin'), alreadyPinned: n('t.pinned') }, n('have'), n('limit'))),
      '(NOT pin OR t.pinned OR (have < limit))',
    ],
    [
      'the pin limit, a set at once',
      () => expression(setPinnedAllowedIn(SQL, n('pin'), n('have'), n('adding'), n('limit'))),
      '(NOT pin OR ((adding = 0) OR ((have + adding) <= limit)))',
    ],
    ['the ceiling’s excess', () => excessIn(SQL, n('live'), n('ceiling')), 'GREATEST(0, ((live + 1) - ceiling))'],
    [
      'an import within its ceiling',
      () => expression(fitsWithoutEvictionIn(SQL, n('have'), n('adding'), n('ceiling'))),
      '((adding = 0) OR ((have + adding) <= ceiling))',
    ],
    [
      'the floor, the vector arm',
      () => expression(relatedIn(SQL, { foundByWords: false, distance: n('distance') }, n('far'))),
      '(distance <= far)',
    ],
    [
      'the floor, the lexical arm',
      () => expression(relatedIn(SQL, { foundByWords: true, distance: n('distance') }, n('far'))),
      'true',
    ],
    ['the followers’ share', () => keptPlacesIn(SQL, n('share'), n('lim')), '(lim - CAST(floor((share * lim)) AS INT4))'],
    [
      'the expires flag of a new memory',
      () => expression(inExpiryIndexIn(SQL, { pinned: n('pin'), kindExpires: n('ttl') })),
      '(ttl AND NOT pin)',
    ],
    [
      'the expires flag after a restatement that may unpin',
      () => expression(expiresAfterIn(SQL, n('m.expires'), { pin: n('pin'), unpin: n('unpin') }, n('ttl'))),
      'CASE WHEN unpin THEN ttl ELSE (m.expires AND NOT pin) END',
    ],
    [
      'the expires flag after a restatement that never unpins',
      () => expression(expiresAfterIn(SQL, n('m.expires'), { pin: n('pin'), unpin: false }, n('ttl'))),
      '(m.expires AND NOT pin)',
    ],
    [
      'pinned after a restatement that may unpin',
      () => expression(pinnedAfterIn(SQL, n('m.pinned'), { pin: n('pin'), unpin: n('unpin') })),
      '((m.pinned OR pin) AND NOT unpin)',
    ],
    [
      'pinned after a restatement that never unpins',
      () => expression(pinnedAfterIn(SQL, n('m.pinned'), { pin: n('excluded.pinned'), unpin: false })),
      '(m.pinned OR excluded.pinned)',
    ],
  ])('%s', (_, rendered, expected) => {
    expect(text(rendered())).toBe(expected);
  });

  test('a parameter goes through a rule as a parameter, numbered like any other', () => {
    const q = render(sql`SELECT ${excessIn(SQL, sql`(SELECT count(*) FROM live_rows)`, sql`${param('ceiling', 3)}::int4`)}`);
    expect(q).toEqual({ text: 'SELECT GREATEST(0, (((SELECT count(*) FROM live_rows) + 1) - $1::int4))', values: [3] });
  });
});

describe('the same rules over values (what the in-memory store and the service evaluate)', () => {
  const count = fc.nat({ max: 200 });

  test('each rule says what its words say', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), count, count, count, (pin, already, ttl, have, adding, limit) => {
        expect(pinAllowed({ pin, alreadyPinned: already }, have, limit)).toBe(!pin || already || have < limit);
        expect(pinsFit(have, adding, limit)).toBe(adding === 0 || have + adding <= limit);
        expect(setPinnedAllowed(pin, have, adding, limit)).toBe(!pin || adding === 0 || have + adding <= limit);
        expect(excessFor(have, limit)).toBe(Math.max(0, have + 1 - limit));
        expect(pinnedAfter(already, { pin, unpin: ttl && !pin })).toBe((already || pin) && !(ttl && !pin));
        expect(expiresAfter(ttl && !already, { pin, unpin: !pin && already }, ttl)).toBe(
          !pin && already ? ttl : ttl && !already && !pin,
        );
      }),
    );
  });

  test('the floor and the followers’ share', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        (words, d, far) => {
          expect(isRelated({ foundByWords: words, distance: d }, far)).toBe(words || d <= far);
        },
      ),
    );
    expect([
      keptPlaces({ followerPlaces: 0.4 }, 10),
      keptPlaces({ followerPlaces: 0.4 }, 3),
      keptPlaces({ followerPlaces: 0 }, 7),
    ]).toEqual([6, 2, 7]);
    expect(VALUES.when(true, false, true)).toBe(false);
  });
});
