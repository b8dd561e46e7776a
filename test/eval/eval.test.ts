import { existsSync } from 'node:fs';
import { DEFAULT_DATA_DIR, loadDaccord, loadSick } from './data.js';
import { bestThreshold, quantile } from './distance-stats.js';
import { judgeLikeTheService } from './pipeline.js';

const judge = { name: 'always-same', compare: async () => 'same' as const };

test('the exact-restatement rule decides before the judge, as the service does', async () => {
  await expect(judgeLikeTheService(judge, 'Le siège est à Ouagadougou.', 'le siege est a ouagadougou')).resolves.toEqual({
    outcome: 'same',
    exact: true,
  });
  await expect(judgeLikeTheService(judge, 'a', 'b')).resolves.toEqual({ outcome: 'same', exact: false });
});

test('a judge that throws counts as unavailable', async () => {
  const failing = { name: 'failing', compare: async () => Promise.reject(new Error('down')) };

  await expect(judgeLikeTheService(failing, 'a', 'b')).resolves.toEqual({ outcome: 'unavailable', exact: false });
});

test('the best threshold is the smallest distance that reaches the merge recall', () => {
  const same = [0.1, 0.2, 0.3, 0.4];
  const contradictions = [0.05, 0.5];
  const different = [0.15, 0.25, 0.9];
  const notSame = [...contradictions, ...different].sort((a, b) => a - b);

  const result = bestThreshold(same, notSame, contradictions, 0.5);

  expect(result.threshold).toBe(0.2);
  expect(result.recall).toBe(0.5);
  expect(result.falseMerge).toBeCloseTo(2 / 5);
  expect(result.contradictionsMerged).toBe(0.5);
  expect(quantile([1, 2, 3], 1)).toBe(3);
});

// The benchmarks live outside the repository (../shared/data); without them there is nothing to check.
const describeWithData = existsSync(DEFAULT_DATA_DIR) ? describe : describe.skip;
if (!existsSync(DEFAULT_DATA_DIR)) console.warn(`skipping the benchmark label tests: ${DEFAULT_DATA_DIR} is missing`);

describeWithData('benchmark labels per ../shared/README.md', () => {
  test('SICK: dev is TRAIN + TRIAL, held out is TEST, labels from both directions with the corrections applied', () => {
    const dev = new Map(loadSick(DEFAULT_DATA_DIR, 'dev').map((p) => [p.id, p]));
    const heldout = new Map(loadSick(DEFAULT_DATA_DIR, 'heldout').map((p) => [p.id, p]));

    expect(dev.size + heldout.size).toBe(9840);
    expect(dev.get('1')?.label).toBe('different');
    expect(dev.get('2')?.label).toBe('contradiction');
    expect(dev.get('3')?.label).toBe('same');
    expect(dev.has('24')).toBe(true);
    // Pair 19 is e/e in SICK.txt, corrected to AnBBeA: one direction only, so not the same claim.
    expect(heldout.get('19')?.label).toBe('different');
  });

  test('DACCORD: odd ids are dev, even ids held out; quoted fields are unquoted', () => {
    const dev = loadDaccord(DEFAULT_DATA_DIR, 'dev');
    const heldout = loadDaccord(DEFAULT_DATA_DIR, 'heldout');

    expect(dev.length + heldout.length).toBe(1034);
    expect(dev[0]).toMatchObject({ id: 'a001', label: 'contradiction' });
    expect(heldout[0]).toMatchObject({ id: 'a002', label: 'compatible' });
    const quoted = heldout.find((p) => p.id === 'a006');
    expect(quoted?.b.startsWith('Al-Jazeera ne mentionne')).toBe(true);
    expect(quoted?.b).toContain('"habitants');
  });
});
