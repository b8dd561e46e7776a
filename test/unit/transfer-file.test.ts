import { InvalidInputError } from '../../lambda/memory/errors.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { parseTransfer } from '../../lambda/memory/transfer/transfer-file.js';

/**
 * An import file's fields out of range: each is refused before anything happens, by an error that
 * names the field (a 400 at the endpoint), never passed on to the database to fail there.
 */

const NOW = new Date('2026-12-03T12:00:00Z');

const memory = (over: Record<string, unknown> = {}) => ({
  id: '6f1d0b7e-3c1a-4f57-9a55-0d1e2f3a4b5c',
  kind: 'fact',
  content: 'The boat is moored at pier 7.',
  pinned: false,
  createdAt: '2026-11-01T10:00:00.000Z',
  lastUsefulAt: '2026-11-02T10:00:00.000Z',
  recallCount: 2,
  restatements: 1,
  agent: 'agent',
  client: 'client',
  origin: null,
  restatedBy: [],
  conflicts: [],
  ...over,
});
const line = (over: Record<string, unknown> = {}) => ({
  at: '2026-11-03T10:00:00.000Z',
  kind: 'fact',
  rule: 'expiry',
  ageSeconds: 60,
  recallCount: 0,
  ...over,
});
const file = (over: Record<string, unknown> = {}) => ({
  format: 'naaba-memories',
  version: 1,
  exportedAt: '2026-12-01T00:00:00.000Z',
  memories: [memory()],
  journal: [line()],
  ...over,
});
const source = { agent: 'a', client: 'c', origin: null, at: '0000-01-01T00:00:00Z' };

test('a file with every field in range is read as it was written', () => {
  const doc = parseTransfer(file(), DEFAULT_RULES, NOW);
  expect(doc.memories[0]?.createdAt).toBe('2026-11-01T10:00:00.000Z');
  expect(doc.journal).toHaveLength(1);
});

test.each([
  ['createdAt in year 0000', file({ memories: [memory({ createdAt: '0000-01-01T00:00:00Z' })] }), 'memories[0].createdAt'],
  ['createdAt before 1970', file({ memories: [memory({ createdAt: '1969-12-31T23:59:59Z' })] }), 'memories[0].createdAt'],
  [
    'lastUsefulAt on 31 February',
    file({ memories: [memory({ lastUsefulAt: '2026-02-31T00:00:00Z' })] }),
    'memories[0].lastUsefulAt',
  ],
  ['a time at 24:00', file({ memories: [memory({ lastUsefulAt: '2026-01-01T24:00:00Z' })] }), 'memories[0].lastUsefulAt'],
  ['a year past 9999', file({ memories: [memory({ createdAt: '+010000-01-01T00:00:00Z' })] }), 'memories[0].createdAt'],
  ['a restatement in year 0000', file({ memories: [memory({ restatedBy: [source] })] }), 'memories[0].restatedBy[0].at'],
  ['a journal line before 1970', file({ journal: [line({ at: '1900-01-01T00:00:00Z' })] }), 'journal[0].at'],
  ['exportedAt in year 0000', file({ exportedAt: '0000-01-01T00:00:00Z' }), 'exportedAt'],
  ['a recall count past 32 bits', file({ memories: [memory({ recallCount: 2 ** 31 })] }), 'memories[0].recallCount'],
  ['a negative age', file({ journal: [line({ ageSeconds: -1 })] }), 'journal[0].ageSeconds'],
  ['a fractional count', file({ memories: [memory({ restatements: 1.5 })] }), 'memories[0].restatements'],
  ['no restatement', file({ memories: [memory({ restatements: 0 })] }), 'memories[0].restatements'],
  ['content past the size limit', file({ memories: [memory({ content: 'x'.repeat(40_000) })] }), 'memories[0].content'],
  ['a kind the server does not keep', file({ memories: [memory({ kind: 'constructor' })] }), 'memories[0].kind'],
  ['a rule no journal has', file({ journal: [line({ rule: 'whim' })] }), 'journal[0].rule'],
  ['too many memories', file({ memories: Array.from({ length: 5001 }, () => ({})) }), 'the file.memories'],
])('%s is refused, naming the field', (_name, value, field) => {
  const read = () => parseTransfer(value, DEFAULT_RULES, NOW);
  expect(read).toThrow(InvalidInputError);
  expect(read).toThrow(field);
  expect(read).toThrow('nothing was imported');
});
