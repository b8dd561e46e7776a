import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import type { RecallRanking } from '../../lambda/memory/policy/ranking.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { memoryServices } from '../../lambda/memory/services.js';
import { nonsenseQueries } from '../../bench/nonsense.js';
import { ManualClock } from '../support/clock.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal } from '../support/memory.js';

const MEMORIES = [
  'Caroline: I went to a support group yesterday and it was so powerful.',
  'Melanie: We took the kids camping by the lake last weekend.',
  'Caroline: The adoption agency called about the interview on Friday.',
  'Melanie: My pottery class made bowls, mine came out a bit lopsided.',
  'Caroline: I am reading a book about transgender history.',
  'Melanie: The sunset at the beach was the best part of the trip.',
];

/** One store for every ranking below, as one database serves every configuration. */
const stores = inMemoryStores();

const serviceWith = (ranking: RecallRanking) =>
  memoryServices({
    stores,
    embedder: new LocalEmbedder(256),
    judge: new ScriptedJudge(() => 'different'),
    clock: new ManualClock(),
    rules: DEFAULT_RULES,
    ranking,
  }).curation;

test('recall returns nothing for invented words; a shared word still finds its memory; the evaluation rankings have no floor', async () => {
  const me = principal();
  const hybrid = serviceWith('hybrid');
  for (const content of MEMORIES) await hybrid.remember(me, CLIENT, { content, kind: 'event' });
  const queries = nonsenseQueries(MEMORIES, 20);
  for (const query of queries) expect(await hybrid.recall(me, { query })).toEqual([]);
  const [found] = await hybrid.recall(me, { query: 'When is the adoption interview?' });
  expect(found?.content).toContain('adoption agency');
  // For evaluation only (NAABA_RECALL_RANKING): the nearest, however far.
  for (const ranking of ['vector', 'hybrid-no-floor'] as const)
    expect(await serviceWith(ranking).recall(me, { query: queries[0] ?? '' })).toHaveLength(MEMORIES.length);
});
