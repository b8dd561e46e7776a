import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Bm25 } from '../../bench/bm25.js';
import { loadLocomo, parseTurnsPerMemory } from '../../bench/locomo-data.js';
import { DEFAULT_DATA_DIR } from './data.js';

test('plain BM25: a rare shared word outranks a common one, the shorter text wins a tie; nothing shared, nothing returned', () => {
  const bm25 = new Bm25([
    { id: 'a', text: 'the ferry leaves from pier seven' },
    { id: 'b', text: 'the bread is baked on mondays' },
    { id: 'c', text: 'the market opens at dawn' },
  ]);
  expect(bm25.search('which pier for the ferry?', 10)).toEqual(['a', 'c', 'b']);
  expect(bm25.search('pier', 10)).toEqual(['a']);
  expect(bm25.search('zebra', 10)).toEqual([]);
  expect(bm25.search('the', 1)).toHaveLength(1);
});

const locomo = join(DEFAULT_DATA_DIR, 'locomo', 'locomo10.json');
const data = existsSync(locomo);
// Without the data the two checks are skipped, and say why: a checkout outside the workspace has no ../shared.
if (!data) console.log(`LoCoMo split checks: not run, ${locomo} is missing (../shared/data holds it)`);

(data ? test : test.skip)('LoCoMo splits: turns become memories, malformed evidence is split or dropped', () => {
  const dev = loadLocomo(DEFAULT_DATA_DIR, 'dev');
  const heldout = loadLocomo(DEFAULT_DATA_DIR, 'heldout');
  expect(dev.map((c) => c.id)).toEqual(['conv-26', 'conv-30', 'conv-41', 'conv-42', 'conv-43']);
  expect(heldout.map((c) => c.id)).toEqual(['conv-44', 'conv-47', 'conv-48', 'conv-49', 'conv-50']);
  const count = (split: typeof dev) => split.reduce((n, c) => n + c.questions.length, 0);
  expect([count(dev), count(heldout)]).toEqual([760, 775]);
  const [first] = dev;
  expect(first?.turns[2]).toEqual({
    id: 'D1:3',
    content: 'Caroline: I went to a LGBTQ support group yesterday and it was so powerful.',
  });
  for (const c of [...dev, ...heldout]) {
    const ids = new Set(c.turns.map((t) => t.id));
    for (const q of c.questions) {
      expect(q.category).toBeGreaterThanOrEqual(1);
      expect(q.category).toBeLessThanOrEqual(4);
      expect(q.evidence.length).toBeGreaterThan(0);
      expect(q.evidence.every((e) => ids.has(e))).toBe(true);
    }
  }
});

test.each<[string, { min: number; max: number } | undefined]>([
  ['1', { min: 1, max: 1 }],
  ['5', { min: 5, max: 5 }],
  ['1-10', { min: 1, max: 10 }],
  ['0', undefined],
  ['10-1', undefined],
  ['1-51', undefined],
  ['five', undefined],
])('--turns-per-memory %j', (text, expected) => {
  expect(parseTurnsPerMemory(text)).toEqual(expected);
});

(data ? test : test.skip)('long memories: consecutive turns of one session per memory, evidence at memory level', () => {
  const [turns] = loadLocomo(DEFAULT_DATA_DIR, 'dev');
  const [grouped] = loadLocomo(DEFAULT_DATA_DIR, 'dev', { min: 1, max: 10 });
  if (!turns || !grouped) throw new Error('no dev conversation');
  const sizes = grouped.turns.map((m) => m.content.split('\n').length);
  expect(Math.min(...sizes)).toBe(1);
  expect(Math.max(...sizes)).toBe(10);
  // Every turn is in exactly one memory, in order, and no memory crosses a session.
  expect(grouped.turns.flatMap((m) => m.content.split('\n'))).toEqual(turns.turns.map((t) => t.content));
  for (const m of grouped.turns) expect(new Set(m.id.split('..').map((id) => id.split(':')[0])).size).toBe(1);
  const ids = new Set(grouped.turns.map((m) => m.id));
  grouped.questions.forEach((q, i) => {
    const before = turns.questions[i];
    expect(q.text).toBe(before?.text);
    expect(q.evidence.every((e) => ids.has(e))).toBe(true);
    expect(q.evidence.length).toBeLessThanOrEqual(before?.evidence.length ?? 0);
  });
});
