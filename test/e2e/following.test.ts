import { jest } from '@jest/globals';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { call, withUserClient } from '../support/endpoint.js';

jest.setTimeout(HEAVY_STEP_MS);

/** One conversation as an agent stores it, in order, with the conversation as origin. */
const CHAT = [
  'Sam: What did you get your sister for her birthday?',
  'Me: A blue ceramic teapot from the flea market.',
  'Sam: Nice, she drinks a lot of tea.',
  'Me: Next I am planning a trip to Lisbon.',
];
const QUESTION = 'birthday present for my sister';

/** What recall returns for the question after remembering the chat, with `ranking` (NAABA_RECALL_RANKING). */
async function recalled(ranking: 'hybrid' | 'hybrid-no-following', origin: string | undefined): Promise<string[]> {
  return withUserClient({ NAABA_RECALL_RANKING: ranking }, async (client) => {
    for (const content of CHAT) {
      const args = origin === undefined ? { content, kind: 'event' } : { content, kind: 'event', origin };
      expect((await call(client, 'remember', args)).isError).toBeFalsy();
    }
    const unrelated = { content: 'The sister project ships its teapot release in May.', kind: 'event', origin: 'release notes' };
    expect((await call(client, 'remember', unrelated)).isError).toBeFalsy();
    const result = await call<{ memories: { content: string }[] }>(client, 'recall', { query: QUESTION });
    expect(result.isError).toBeFalsy();
    return result.structuredContent.memories.map((m) => m.content);
  });
}

test('through MCP, a recalled turn brings the next two of its conversation, the answer among them', async () => {
  const found = await recalled('hybrid', 'chat with Sam, 2026-11-30');
  expect(found[0]).toBe(CHAT[0]);
  expect(found).toEqual(expect.arrayContaining([CHAT[1], CHAT[2]]));
  // Only two follow; the fourth turn shares no word with the question.
  expect(found).not.toContain(CHAT[3]);
});

test('without an origin, or with the following memories off, the answer sharing no word is not returned', async () => {
  expect(await recalled('hybrid', undefined)).not.toContain(CHAT[1]);
  expect(await recalled('hybrid-no-following', 'chat with Sam, 2026-11-30')).not.toContain(CHAT[1]);
});
