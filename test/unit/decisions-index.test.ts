import { readFileSync } from 'node:fs';
import {
  DECISIONS,
  type DecisionRecord,
  decisionProblems,
  type GapNotes,
  missingNumbers,
  parseRecord,
  readDecisions,
  readGapNotes,
  renderIndex,
  SKIPPED,
} from '../../bin/docs/decisions-index.js';

const record = (file: string, status: string | undefined, heading = `# ${file.slice(0, 4)} — A title`): DecisionRecord =>
  parseRecord(file, [heading, '', ...(status === undefined ? [] : [`Status: ${status}`]), '', 'Body.', ''].join('\n'));

const NO_NOTES: GapNotes = { gaps: [], reserved: [] };

describe('the decision records in docs/decisions', () => {
  const records = readDecisions();
  const notes = readGapNotes();

  it('have an index that is what `npm run docs:decisions` writes now (run it and commit README.md)', () => {
    expect(readFileSync(new URL('README.md', DECISIONS), 'utf8')).toBe(renderIndex(records, notes));
  });

  it('each have one number, a status, and a superseded one an existing later successor', () => {
    expect(decisionProblems(records, notes)).toEqual([]);
    expect(records.length).toBeGreaterThan(70);
  });
});

describe('decisionProblems', () => {
  it.each([
    ['a record without a status', [record('0001-a.md', undefined)], ['0001-a.md: no "Status:" line right under the heading']],
    [
      'a status that is not right under the heading',
      [parseRecord('0001-a.md', '# 0001 — A\n\nSome text.\n\nStatus: accepted\n')],
      ['0001-a.md: no "Status:" line right under the heading'],
    ],
    [
      'a successor that does not exist',
      [record('0001-a.md', 'superseded by 0003. Why.'), record('0002-b.md', 'accepted')],
      ['0001-a.md: superseded by 0003, which is not a later record'],
    ],
    [
      'a successor older than the record',
      [record('0001-a.md', 'accepted'), record('0002-b.md', 'superseded by 0001')],
      ['0002-b.md: superseded by 0001, which is not a later record'],
    ],
    [
      'superseded without a number',
      [record('0001-a.md', 'superseded, see the later one')],
      ['0001-a.md: a superseded record says "Status: superseded by NNNN"'],
    ],
    [
      'two records with one number',
      [record('0001-a.md', 'accepted'), record('0001-b.md', 'accepted')],
      ['0001 is taken by 0001-a.md and 0001-b.md'],
    ],
    [
      'a heading with another number',
      [record('0002-a.md', 'accepted', '# 0003 — A title')],
      ['0002-a.md: the first heading must read "# 0002 — Title"'],
    ],
    [
      'a file not named as a record',
      [record('notes.md', 'accepted')],
      ['notes.md: not named NNNN-title.md (lower case, digits and hyphens)'],
    ],
  ])('refuses %s', (_case, records, problems) => {
    expect(decisionProblems(records, NO_NOTES)).toEqual(problems);
  });

  it('refuses a gap note for a number that has a record, but not a reserved one', () => {
    const records = [record('0001-a.md', 'accepted'), record('0002-b.md', 'accepted')];
    expect(decisionProblems(records, { gaps: [{ first: 2, last: 2, note: 'never written' }], reserved: [] })).toEqual([
      'gaps.json explains 0002 as missing, but 0002 has a record',
    ]);
    expect(decisionProblems(records, { gaps: [], reserved: [{ first: 2, last: 9, note: 'reserved' }] })).toEqual([]);
  });

  it('accepts a superseded record that names a later one', () => {
    const records = [record('0001-a.md', 'superseded by 0002. What changed.'), record('0002-b.md', 'accepted')];
    expect(decisionProblems(records, NO_NOTES)).toEqual([]);
  });
});

describe('renderIndex', () => {
  it('marks a superseded record and links its successor and the later records', () => {
    const index = renderIndex(
      [
        record('0001-a.md', 'superseded by 0003. What changed.'),
        record('0002-b.md', 'accepted'),
        record('0003-c.md', 'accepted'),
      ],
      NO_NOTES,
    );
    expect(index).toContain('| 0001 | [A title](0001-a.md) | **superseded** by [0003](0003-c.md) | [0003](0003-c.md) |');
    expect(index).toContain('| 0002 | [A title](0002-b.md) | accepted |  |');
  });

  it('shows a status up to its first sentence, parentheses kept whole', () => {
    const index = renderIndex([record('0001-a.md', 'accepted (issue 1. a note). Amended later.')], NO_NOTES);
    expect(index).toContain('| accepted (issue 1. a note) |');
  });
});

describe('missingNumbers', () => {
  const notes: GapNotes = {
    gaps: [{ first: 2, last: 2, note: 'merged into 0001' }],
    reserved: [{ first: 6, last: 8, note: 'reserved' }],
  };

  it('explains every gap below the newest record, skipped by default, and lists reserved numbers', () => {
    const records = [record('0001-a.md', 'accepted'), record('0005-e.md', 'accepted')];
    expect(missingNumbers(records, notes)).toEqual([
      { first: 2, last: 2, note: 'merged into 0001' },
      { first: 3, last: 4, note: SKIPPED },
      { first: 6, last: 8, note: 'reserved' },
    ]);
  });

  it('drops a reserved number once its record lands, with no edit of the notes', () => {
    const records = [record('0001-a.md', 'accepted'), record('0005-e.md', 'accepted'), record('0007-g.md', 'accepted')];
    expect(missingNumbers(records, notes)).toEqual([
      { first: 2, last: 2, note: 'merged into 0001' },
      { first: 3, last: 4, note: SKIPPED },
      { first: 6, last: 6, note: 'reserved' },
      { first: 8, last: 8, note: 'reserved' },
    ]);
  });
});
