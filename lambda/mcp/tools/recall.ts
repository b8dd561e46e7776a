import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { RecalledMemory, Source } from '../../memory/model.js';
import type { ToolContext } from '../context.js';
import { kindEnum, LIMITS, recalledSchema, text } from '../schemas.js';
import { guarded, success } from '../tool-result.js';

const sourceOut = (s: Source) => ({ agent: s.agent, client: s.client, origin: s.origin, at: s.at.toISOString() });

export function recalledOut(m: RecalledMemory) {
  return {
    id: m.id,
    kind: m.kind,
    content: m.content,
    distance: m.distance,
    score: m.score,
    created_at: m.createdAt.toISOString(),
    last_useful_at: m.lastUsefulAt.toISOString(),
    recall_count: m.recallCount,
    restatements: m.restatements,
    pinned: m.pinned,
    origin: m.source.origin,
    agent: m.source.agent,
    client: m.source.client,
    restated_by: m.restatedBy.map(sourceOut),
    conflicts: [...m.conflicts],
  };
}

const clip = (s: string) => (s.length > 160 ? `${s.slice(0, 157)}...` : s);

function render(memories: readonly RecalledMemory[]): string {
  if (memories.length === 0) return 'no memories matched';
  const lines = memories.map((m, i) => {
    const conflict = m.conflicts.length > 0 ? ` [conflicts with ${m.conflicts.join(', ')}]` : '';
    return `${i + 1}. (${m.kind}, score=${m.score.toFixed(4)}, d=${m.distance.toFixed(3)}, id ${m.id}) ${clip(m.content)}${conflict}`;
  });
  return `${memories.length} memor${memories.length === 1 ? 'y' : 'ies'}, best first:\n${lines.join('\n')}`;
}

export function registerRecall(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description:
        "Search the calling user's memories, best first: meaning (embeddings) and words (names, numbers and rare terms, weighed by how rare they are among your own memories) ranked together. " +
        'Each comes with its provenance and any conflict links. ' +
        "A memory found also brings the next two remembered after it with the same origin and kind (the same conversation or document) that are still kept, from the next four, ranked below it: an answer often follows what shares the question's words. " +
        'Otherwise only related memories come back: one that shares no word with the query and whose meaning is far from it is left out, so a query nothing matches returns an empty list (there is no option to get the nearest ones anyway; rephrase with words the memory would contain). ' +
        'Recalling a memory marks it useful (recall count and last-useful time), which protects it from eviction and expiry.',
      inputSchema: {
        query: text('what to look for', LIMITS.queryBytes),
        kinds: z.array(kindEnum(context.memory.rules)).min(1).optional().describe('kinds to search; all when absent'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(LIMITS.recallMax)
          .optional()
          .describe(`at most this many (default ${LIMITS.recallDefault})`),
      },
      outputSchema: { memories: z.array(recalledSchema) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(context, 'recall', async () => {
        const memories = await context.memory.recall(context.principal, args);
        return success({ memories: memories.map(recalledOut) }, render(memories));
      }),
  );
}
