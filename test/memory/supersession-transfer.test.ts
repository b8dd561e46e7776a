import type { JournalLine, Memory, Principal } from '../../lambda/memory/model.js';
import { transferDocument } from '../../lambda/memory/transfer/transfer-file.js';
import { freshDatabase } from '../support/database.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, type ServiceHarness, serviceOver } from '../support/memory.js';

/**
 * Export and import carry supersession (decision 0114): a file holds each memory's replacement and
 * when it was replaced, an import writes both back (a lossless round trip: the same memories, the
 * same chain, the same times, under new ids), and a file whose replacements are wrong is refused
 * whole with the field named. On PGlite and on the in-memory reference store.
 */

const TUESDAY = 'The team meeting is on Tuesday at 10.';
const THURSDAY = 'The team meeting moved to Thursday at 10.';
const FRIDAY = 'The team meeting now takes place on Friday at 9.';
const UPDATES = new Map([
  [TUESDAY, THURSDAY],
  [THURSDAY, FRIDAY],
]);

/** A store with a chain of two updates (Tuesday ← Thursday ← Friday) and an unrelated fact, an hour apart. */
async function seeded(h: ServiceHarness, owner: Principal): Promise<void> {
  for (const content of [TUESDAY, 'Ines plays the cello.', THURSDAY, FRIDAY]) {
    await h.service.remember(owner, CLIENT, { content, kind: 'fact' });
    h.clock.advance(3600);
  }
}

async function exported(h: ServiceHarness, owner: Principal) {
  const memories: Memory[] = [];
  let cursor: string | undefined;
  do {
    const page = await h.memory.transfer.exportMemories(owner, cursor);
    memories.push(...page.memories);
    cursor = page.nextCursor;
  } while (cursor);
  const lines: JournalLine[] = [...(await h.memory.transfer.exportJournal(owner, undefined)).lines];
  return JSON.parse(JSON.stringify(transferDocument(memories, lines, h.clock.now())));
}

/** A file's memories with every id replaced by the content of the memory it names: comparable across users. */
function byContent(file: { memories: Record<string, unknown>[] }): Record<string, unknown>[] {
  const content = new Map(file.memories.map((m) => [m.id, m.content]));
  return file.memories
    .map(
      ({ id: _id, ...m }): Record<string, unknown> => ({
        ...m,
        conflicts: (m.conflicts as string[]).map((c) => content.get(c)).sort(),
        supersededBy: m.supersededBy === null ? null : content.get(m.supersededBy as string),
      }),
    )
    .sort((a, b) => String(a.content).localeCompare(String(b.content)));
}

describe.each(['pglite', 'memory'] as const)('on %s', (store) => {
  let h: ServiceHarness;
  let close = async () => {};

  beforeAll(async () => {
    const judge = new ScriptedJudge((existing, incoming) => (UPDATES.get(existing) === incoming ? 'contradicts' : 'different'));
    if (store === 'pglite') {
      const db = await freshDatabase(256);
      h = serviceOver(db, { judge });
      close = () => db.close();
    } else {
      h = serviceOver('memory', { judge });
    }
  });
  afterAll(async () => close());

  test('an export carries each replacement and its time, and an import writes them back: the same file', async () => {
    const alice = principal();
    await seeded(h, alice);
    const file = await exported(h, alice);
    const replaced = new Map(file.memories.map((m: { content: string; supersededBy: string | null }) => [m.content, m]));
    const idOf = (content: string) => (replaced.get(content) as { id: string }).id;
    expect(replaced.get(TUESDAY)).toMatchObject({ supersededBy: idOf(THURSDAY), supersededAt: expect.any(String) });
    expect(replaced.get(THURSDAY)).toMatchObject({ supersededBy: idOf(FRIDAY) });
    expect(replaced.get(FRIDAY)).toMatchObject({ supersededBy: null, supersededAt: null });
    expect(file.memories.every((m: object) => !('supersedes' in m))).toBe(true);

    const bob = principal();
    const report = await h.memory.transfer.importMemories(bob, file);
    expect(report).toMatchObject({ written: 4, complete: true });
    const again = await exported(h, bob);
    expect(byContent(again)).toEqual(byContent(file));
    // The same file again changes nothing.
    await h.memory.transfer.importMemories(bob, file);
    expect(byContent(await exported(h, bob))).toEqual(byContent(file));
    // Bob's memory is Alice's: the current fact only, and the history when asked, newest first.
    const current = await h.service.recall(bob, { query: 'When is the team meeting?', kinds: ['fact'] });
    expect(current.map((m) => m.content)).not.toContain(TUESDAY);
    expect(current.map((m) => m.content)).not.toContain(THURSDAY);
    expect(current.find((m) => m.content === FRIDAY)?.supersedes).toHaveLength(1);
    const history = await h.service.recall(bob, { query: 'When is the team meeting?', kinds: ['fact'], includeSuperseded: true });
    expect(history.map((m) => m.content).filter((c) => c !== 'Ines plays the cello.')).toEqual([FRIDAY, THURSDAY, TUESDAY]);
  });

  test.each([
    [
      'a replacement that is not in the file',
      (m: Record<string, unknown>[]) => Object.assign(m[0] ?? {}, { supersededBy: '00000000-0000-4000-8000-000000000009' }),
      'memories[0].supersededBy',
    ],
    [
      'a replacement of another kind',
      (m: Record<string, unknown>[]) => Object.assign(m[1] ?? {}, { kind: 'preference' }),
      'memories[0].supersededBy',
    ],
    [
      'a replacement without its time',
      (m: Record<string, unknown>[]) => Object.assign(m[0] ?? {}, { supersededAt: null }),
      'memories[0].supersededAt',
    ],
    [
      'a time without a replacement',
      (m: Record<string, unknown>[]) => Object.assign(m[1] ?? {}, { supersededAt: m[0]?.supersededAt }),
      'memories[1].supersededAt',
    ],
    [
      'a replacement before the memory was made',
      (m: Record<string, unknown>[]) => Object.assign(m[0] ?? {}, { supersededAt: '2000-01-01T00:00:00.000Z' }),
      'memories[0].supersededAt',
    ],
    [
      'a chain that comes back on itself',
      (m: Record<string, unknown>[]) => Object.assign(m[1] ?? {}, { supersededBy: m[0]?.id, supersededAt: m[0]?.supersededAt }),
      'memories[0].supersededBy',
    ],
  ])('a file with %s is refused whole, naming the field', async (_name, spoil, field) => {
    const owner = principal();
    const at = h.clock.now().toISOString();
    const memory = (id: string, content: string) => ({
      id,
      kind: 'fact',
      content,
      pinned: false,
      createdAt: at,
      lastUsefulAt: at,
      recallCount: 0,
      restatements: 1,
      agent: 'a',
      client: 'c',
      origin: null,
      restatedBy: [],
      conflicts: [],
      supersededBy: null as string | null,
      supersededAt: null as string | null,
    });
    const older = {
      ...memory('00000000-0000-4000-8000-000000000001', 'the door code is 4417'),
      supersededBy: '00000000-0000-4000-8000-000000000002',
      supersededAt: at,
    };
    const memories: Record<string, unknown>[] = [
      older,
      memory('00000000-0000-4000-8000-000000000002', 'the door code is now 9023'),
    ];
    spoil(memories);
    const file = { format: 'naaba-memories', version: 1, exportedAt: at, memories, journal: [] };

    await expect(h.memory.transfer.importMemories(owner, file)).rejects.toThrow(`${field} `);
    await expect(h.memory.transfer.importMemories(owner, file)).rejects.toThrow('nothing was imported');
    expect((await h.memory.transfer.exportMemories(owner, undefined)).memories).toEqual([]);
  });
});
