import { randomUUID } from 'node:crypto';
import type { ImportProgress } from '../../lambda/memory/transfer/importer.js';
import { largeMemory } from '../bench/fairness-floods.js';
import { principal, serviceOver } from '../support/memory.js';

/**
 * An import in steps (issue 34, point 1), on the reference store: about one 8 KB memory per step,
 * progress after each, the whole file checked before any step, and the same file again writes
 * nothing new.
 */

/** The memories made one second apart, in the order given: the order the steps write them in. */
function file(now: string, contents: readonly string[]) {
  const at = (i: number) => new Date(Date.parse(now) - (contents.length - i) * 1_000).toISOString();
  const memories = contents.map((content, i) => ({
    id: randomUUID(),
    kind: 'fact',
    content,
    pinned: false,
    createdAt: at(i),
    lastUsefulAt: at(i),
    recallCount: 0,
    restatements: 1,
    agent: 'a',
    client: 'c',
    origin: null,
    restatedBy: [],
    conflicts: [],
  }));
  return { format: 'naaba-memories', version: 1, exportedAt: now, memories, journal: [] };
}

test('large memories go one per step, small ones together; progress says how far after each step', async () => {
  const h = serviceOver('memory');
  const at = h.clock.now().toISOString();
  const owner = principal();
  const contents = [...[0, 1, 2].map((i) => largeMemory(i)), ...Array.from({ length: 30 }, (_, i) => `small note ${i}`)];
  const heard: ImportProgress[] = [];
  const report = await h.memory.transfer.importMemories(owner, file(at, contents), { progress: (p) => heard.push(p) });
  expect(report).toMatchObject({ memories: 33, written: 33, alreadyPresent: 0 });
  // One large memory per step, the third with the small ones that still fit in 8 KB, then the rest of them.
  expect(report.steps).toBe(4);
  expect(heard.map((p) => p.done).slice(0, 2)).toEqual([1, 2]);
  expect(heard.at(-1)?.done).toBe(33);
  expect(heard.map((p) => p.done)).toEqual([...heard.map((p) => p.done)].sort((a, b) => a - b));
  expect(new Set(heard.map((p) => p.total))).toEqual(new Set([33]));
  const again = await h.memory.transfer.importMemories(owner, file(at, contents));
  expect(again).toMatchObject({ written: 0, alreadyPresent: 33 });
});

test('a file that does not fit as a whole writes no step at all', async () => {
  const h = serviceOver('memory', { rules: { kinds: { fact: { ceiling: 2, ttlSeconds: null } } } });
  const at = h.clock.now().toISOString();
  const heard: ImportProgress[] = [];
  await expect(
    h.memory.transfer.importMemories(principal(), file(at, ['one', 'two', 'three']), { progress: (p) => heard.push(p) }),
  ).rejects.toThrow('nothing was imported');
  expect(heard).toEqual([]);
  expect(await h.inspect.count()).toBe(0);
});

test('a call bounded in time stops between steps and says so; the same file again goes on, links and lines at the end', async () => {
  const h = serviceOver('memory');
  const owner = principal();
  const doc = file(h.clock.now().toISOString(), [largeMemory(0), largeMemory(1), largeMemory(2)]);
  const calls = [];
  for (let i = 0; i < 5; i += 1) {
    const report = await h.memory.transfer.importMemories(owner, doc, { stopAfterMs: 0 });
    calls.push([report.written, report.complete]);
    if (report.complete) break;
  }
  // At least one step a call: one memory each, then a call that finds all three and finishes.
  expect(calls).toEqual([
    [1, false],
    [1, false],
    [1, true],
  ]);
  expect(await h.inspect.count()).toBe(3);
});

test('memories made at the same instant: each resumed call walks the steps before it again, so its report says how far the import got', async () => {
  const h = serviceOver('memory');
  const owner = principal();
  const doc = file(h.clock.now().toISOString(), [largeMemory(0), largeMemory(1), largeMemory(2), largeMemory(3)]);
  for (const m of doc.memories) m.createdAt = doc.memories[0]?.createdAt ?? m.createdAt;
  const reached = [];
  for (let i = 0; i < 6; i += 1) {
    const report = await h.memory.transfer.importMemories(owner, doc, { stopAfterMs: 0 });
    reached.push(report.written + report.alreadyPresent);
    if (report.complete) break;
  }
  // Ordered by the new ids (drawn afresh each call), a call wrote ahead and reported 1 of 4 each time.
  expect(reached).toEqual([1, 2, 3, 4]);
  expect(await h.inspect.count()).toBe(4);
});
