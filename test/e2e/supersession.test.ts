import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fingerprint } from '../../lambda/memory/canonical.js';
import { ScriptedJudge } from '../support/judges.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * The update pairs of test/eval/updates/dev.json through a real MCP client over HTTP, with a stub
 * judge that answers like a model (`contradicts` for each pair's older and newer statement,
 * `different` otherwise): for every pair the current fact is recalled and the superseded one is
 * not, and `include_superseded` returns both, newest first (decision 0107).
 */

interface UpdatePair {
  readonly id: string;
  readonly kind: string;
  readonly older: string;
  readonly newer: string;
  readonly question: string;
}

const { pairs } = JSON.parse(readFileSync(new URL('../eval/updates/dev.json', import.meta.url), 'utf8')) as {
  pairs: UpdatePair[];
};
const updateOf = new Map(pairs.map((p) => [fingerprint(p.older), fingerprint(p.newer)]));

interface Recalled {
  memories: { id: string; content: string; supersedes: string[]; superseded_by: string | null }[];
}

let endpoint: TestEndpoint;
let client: Client;
const ids = new Map<string, { older: string; newer: string }>();

beforeAll(async () => {
  const judge = new ScriptedJudge((existing, incoming) =>
    updateOf.get(fingerprint(existing)) === fingerprint(incoming) ? 'contradicts' : 'different',
  );
  endpoint = await startTestEndpoint({ judge });
  client = await connect(endpoint.mcpUrl, (await endpoint.issueKey('updates')).token);
  const remember = async (content: string, kind: string) =>
    (await call<{ id: string }>(client, 'remember', { content, kind })).structuredContent.id;
  // Every older statement first, then every update: each update meets the other pairs' facts too.
  const older = new Map<string, string>();
  for (const p of pairs) older.set(p.id, await remember(p.older, p.kind));
  for (const p of pairs) ids.set(p.id, { older: older.get(p.id) ?? '', newer: await remember(p.newer, p.kind) });
}, 300_000);

afterAll(async () => {
  await client?.close();
  await endpoint?.close();
});

test.each(pairs.map((p) => [p.id, p] as const))(
  '%s: the current fact is recalled, the superseded one only when asked',
  async (_id, p) => {
    const { older, newer } = ids.get(p.id) ?? { older: '', newer: '' };
    const current = (await call<Recalled>(client, 'recall', { query: p.question, kinds: [p.kind], limit: 10 })).structuredContent;
    const found = current.memories.map((m) => m.id);
    expect(found).toContain(newer);
    expect(found).not.toContain(older);
    expect(current.memories.find((m) => m.id === newer)?.supersedes).toEqual([older]);

    const all = (
      await call<Recalled>(client, 'recall', { query: p.question, kinds: [p.kind], limit: 10, include_superseded: true })
    ).structuredContent.memories.map((m) => m.id);
    expect(all).toContain(older);
    expect(all.indexOf(newer)).toBeLessThan(all.indexOf(older));
  },
);
