import { randomUUID } from 'node:crypto';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExpiredMemories } from '../../lambda/memory/expired-memories.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { Importer, type ImportProgress } from '../../lambda/memory/transfer/importer.js';
import { largeMemory } from '../../bench/fairness-floods.js';
import { ManualClock } from '../support/clock.js';
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

/**
 * An importer over the reference store whose stopwatch moves `stepMs` at each store call that
 * may write, a tenth of it at each check that writes nothing, and nowhere else: the call's bound
 * is tested in store calls, never in wall-clock time.
 */
function timedImporter(stepMs: number) {
  const stores = inMemoryStores();
  const clock = new ManualClock();
  const embedder = new LocalEmbedder(256);
  let now = 0;
  let calls = 0;
  const importer = new Importer({
    store: {
      importMemories: (plan) => {
        now += plan.writeMemories === false ? stepMs / 10 : stepMs;
        calls += 1;
        return stores.transfer.importMemories(plan);
      },
      load: (plan) => stores.transfer.load(plan),
    },
    expired: new ExpiredMemories(stores.curation, DEFAULT_RULES, clock),
    rules: DEFAULT_RULES,
    clock,
    analyzer: new LexicalAnalyzer(),
    embed: (text) => embedder.embed(text),
    newId: randomUUID,
    stopwatch: () => now,
  });
  return { importer, clock, elapsed: () => now, calls: () => calls };
}

const large = (n: number, from = 0) => Array.from({ length: n }, (_, i) => largeMemory(from + i));

test.each([0, 50, 90])(
  'a call resumed with %i %% of the file there finds that part in a few checks and writes a full step',
  async (percent) => {
    const t = timedImporter(1);
    const owner = principal();
    const contents = large(40);
    const at = t.clock.now().toISOString();
    const there = (contents.length * percent) / 100;
    if (there > 0) await t.importer.run(owner, file(at, contents.slice(0, there)));
    const before = t.calls();

    const report = await t.importer.run(owner, file(at, contents), { stopAfterMs: 0 });

    // One memory a step: this call writes the next one, whatever was there before it.
    expect(report).toMatchObject({ written: 1, alreadyPresent: there, steps: 1, complete: false });
    // The check of the whole file, at most log2(41) checks of a prefix, and the one step: never a walk of the 36 there.
    expect(t.calls() - before).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(41)) + 1);
  },
);

test('every step counts against the bound, and a call whose steps take alike ends within it, however much is there', async () => {
  const t = timedImporter(1_000);
  const owner = principal();
  const contents = large(12);
  const at = t.clock.now().toISOString();
  await t.importer.run(owner, file(at, contents.slice(0, 9)));
  const reports = [];
  for (let i = 0; i < 12; i += 1) {
    const started = t.elapsed();
    const report = await t.importer.run(owner, file(at, contents), { stopAfterMs: 2_500 });
    reports.push({ ...report, took: t.elapsed() - started });
    if (report.complete) break;
  }

  // Three of twelve to go, a step a second, 2.5 s a call: the checks before the first step take
  // half a second, so after one step 1 s is left, no more than a step: three calls, one step each.
  expect(reports.map((r) => [r.written, r.complete])).toEqual([
    [1, false],
    [1, false],
    [1, true],
  ]);
  // Within the call's bound (2.5 s): a step starts only when one as long as the longest so far still
  // ends within it. The last call also writes the links and lines.
  for (const r of reports.slice(0, -1)) expect(r.took).toBeLessThanOrEqual(2_500);
});

test("an import of a new account's empty export writes nothing and is complete at once", async () => {
  const t = timedImporter(1);
  const report = await t.importer.run(principal(), file(t.clock.now().toISOString(), []));
  expect(report).toEqual({
    memories: 0,
    written: 0,
    alreadyPresent: 0,
    expired: 0,
    links: 0,
    journalLines: 0,
    steps: 0,
    complete: true,
  });
  expect(t.calls()).toBe(0);
});
