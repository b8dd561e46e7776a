import { jest } from '@jest/globals';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { call, withUserClient } from '../support/endpoint.js';

// An endpoint per embedder; the sentence encoder loads its model once per process.
jest.setTimeout(HEAVY_STEP_MS);

const MEMORY = 'My dog loves running on the beach.';
/** Shares no word, not even "the", with either memory (the lexical arm finds nothing): only a semantic embedder relates them. */
const PARAPHRASE = 'puppy enjoys sprinting along shorelines';

/** What one endpoint with `embedder` recalls for the paraphrase, after remembering the memory and an unrelated one. */
async function recalled(embedder: 'local' | 'sentence'): Promise<string[]> {
  return withUserClient({ NAABA_EMBEDDER: embedder }, async (client) => {
    for (const content of [MEMORY, 'Quarterly tax return due in April.']) {
      expect((await call(client, 'remember', { content, kind: 'fact' })).isError).toBeFalsy();
    }
    const result = await call<{ memories: { content: string }[] }>(client, 'recall', { query: PARAPHRASE });
    expect(result.isError).toBeFalsy();
    return result.structuredContent.memories.map((m) => m.content);
  });
}

test('through MCP, the sentence encoder recalls a paraphrase that shares no word with the memory, and only it', async () => {
  expect(await recalled('sentence')).toEqual([MEMORY]);
  // The lexical embedder places the paraphrase past its relevance floor: nothing comes back.
  expect(await recalled('local')).toEqual([]);
});
