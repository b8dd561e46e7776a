import type { Memory } from '../../lambda/memory/model.js';
import { matchesFilters } from '../../lambda/memory/page/filters.js';
import {
  evictionReason,
  expiryReason,
  outlookOf,
  pinRoom,
  pinVerdict,
  REPLACED_PIN_REASON,
} from '../../lambda/memory/page/outlook.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';

/**
 * What the server tells the memory page about each memory (decision 0138): when it expires, what
 * Pin and Unpin would do, why it is where it is in line, and which memories a search's filters keep.
 * The page shows these and computes none of them.
 */

const NOW = new Date('2026-03-01T12:00:00Z');
const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR);

const facts = (over: Partial<{ kind: string; pinned: boolean; lastUsefulAt: Date; supersededBy: string | null }> = {}) => ({
  kind: 'session',
  pinned: false,
  lastUsefulAt: at(2),
  supersededBy: null,
  ...over,
});

test.each([
  ['an unpinned memory with room', facts(), pinRoom(1, 5), { allowed: true, refusal: null }],
  ['an unpinned memory at the limit', facts(), pinRoom(5, 5), { allowed: false, refusal: 'pin_limit' }],
  ['a replaced memory, room or not', facts({ supersededBy: 'newer' }), pinRoom(0, 5), { allowed: false, refusal: 'replaced' }],
  ['a pinned memory at the limit (Unpin)', facts({ pinned: true }), pinRoom(5, 5), { allowed: true, refusal: null }],
] as const)('Pin for %s', (_name, memory, room, expected) => {
  const verdict = pinVerdict(memory, room);

  expect({ allowed: verdict.allowed, refusal: verdict.refusal }).toEqual(expected);
  expect(verdict.reason === null).toBe(expected.allowed);
});

test('a replaced memory is refused with what a pin would do and the way back', () => {
  expect(pinVerdict(facts({ supersededBy: 'newer' }), pinRoom(0, 5)).reason).toBe(REPLACED_PIN_REASON);
  expect(REPLACED_PIN_REASON).toMatch(/recall never returns it/);
  expect(REPLACED_PIN_REASON).toMatch(/forget the newer one/);
});

test('the pin room is what is left under the limit, never below zero', () => {
  expect([pinRoom(2, 5).room, pinRoom(5, 5).room, pinRoom(7, 5).room]).toEqual([3, 0, 0]);
});

test.each([
  [
    'unpinned, with a TTL: expires a TTL after last useful',
    facts(),
    { expiresAt: at(2 - 24), expiresIfUnpinned: null, atOnce: false },
  ],
  [
    'pinned: never, and on unpin when it would',
    facts({ pinned: true }),
    { expiresAt: null, expiresIfUnpinned: at(2 - 24), atOnce: false },
  ],
  [
    'pinned, last useful longer than its TTL ago: unpinned it expires at once',
    facts({ pinned: true, lastUsefulAt: at(30) }),
    { expiresAt: null, expiresIfUnpinned: at(30 - 24), atOnce: true },
  ],
  ['a kind without a TTL: never', facts({ kind: 'fact' }), { expiresAt: null, expiresIfUnpinned: null, atOnce: false }],
] as const)('expiry as the page shows it: %s', (_name, memory, expected) => {
  const outlook = outlookOf(DEFAULT_RULES, memory, pinRoom(0, 5), NOW);

  expect([outlook.expiresAt, outlook.expiresIfUnpinned, outlook.unpinExpiresAtOnce]).toEqual([
    expected.expiresAt?.toISOString() ?? null,
    expected.expiresIfUnpinned?.toISOString() ?? null,
    expected.atOnce,
  ]);
});

test('an unknown kind is refused, not shown as never expiring', () => {
  expect(() => outlookOf(DEFAULT_RULES, facts({ kind: 'nope' }), pinRoom(0, 5), NOW)).toThrow(/nope/);
});

test('each place in the eviction line has its reason: replaced first, then the least recently useful, ties by id', () => {
  const line = [
    { lastUsefulAt: at(9), supersededBy: 'newer' },
    { lastUsefulAt: at(8), supersededBy: null },
    { lastUsefulAt: at(8), supersededBy: null },
    { lastUsefulAt: at(3), supersededBy: null },
  ];

  expect(line.map((_, i) => evictionReason(line, i, 'fact'))).toEqual([
    'Superseded by a newer memory: superseded memories go first, then after their grace period.',
    'First current memory in line: the least recently useful unpinned fact memory.',
    'Last useful at the same instant as the one above: the tie goes by id.',
    'Goes after the one above: it was useful more recently.',
  ]);
  expect(evictionReason(line.slice(1), 0, 'fact')).toBe('First to go: the least recently useful unpinned fact memory.');
});

test('the expiry line says who expires first and which expire together', () => {
  const line = [{ expiresAt: at(1) }, { expiresAt: at(1) }, { expiresAt: at(0) }];

  expect(line.map((_, i) => expiryReason(line, i))).toEqual([
    'Expires first: last useful longest ago.',
    'Expires at the same instant as the one above.',
    null,
  ]);
});

const memory = (over: Partial<Memory> & { agent?: string; client?: string; origin?: string | null }): Memory => ({
  id: 'm',
  kind: 'fact',
  content: 'x',
  pinned: false,
  createdAt: NOW,
  lastUsefulAt: NOW,
  recallCount: 0,
  restatements: 1,
  source: { agent: over.agent ?? 'laptop', client: over.client ?? 'claude-code', origin: over.origin ?? null, at: NOW },
  restatedBy: [],
  conflicts: [],
  supersededBy: null,
  supersededAt: null,
  supersedes: [],
  ...over,
});

test.each([
  ['no filter keeps everything', {}, memory({}), true],
  ['agent, exactly', { agent: 'laptop' }, memory({ agent: 'cursor' }), false],
  ['client, exactly', { client: 'cursor' }, memory({ client: 'cursor' }), true],
  ['a piece of the origin, in any case', { origin: 'READ' }, memory({ origin: 'payments/readme.md' }), true],
  ['origin on a memory without one', { origin: 'x' }, memory({ origin: null }), false],
  ['pinned only', { pinned: true }, memory({ pinned: false }), false],
  ['not pinned', { pinned: false }, memory({ pinned: false }), true],
  ['conflicting only', { conflicting: true }, memory({ conflicts: ['other'] }), true],
  ['without conflicts', { conflicting: false }, memory({ conflicts: ['other'] }), false],
  ['every filter at once', { agent: 'laptop', pinned: true }, memory({ pinned: true }), true],
] as const)('search keeps what the listing would: %s', (_name, filters, m, kept) => {
  expect(matchesFilters(m, filters)).toBe(kept);
});
