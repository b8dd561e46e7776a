import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { memoryJson } from '../../memory/memory-json.js';
import type { RecalledMemory } from '../../memory/model.js';
import type { ToolContext } from '../context.js';
import { kindEnum, LIMITS, recalledSchema, text } from '../schemas.js';
import { guarded, success } from '../tool-result.js';

/**
 * A recalled memory as the tool's output schema (`recalledSchema`) names it: the one JSON shape
 * (memory-json.ts) in snake_case and in the schema's order, with the ranking's distance and score.
 */
function recalledOut(m: RecalledMemory) {
  const j = memoryJson(m);
  return {
    id: j.id,
    kind: j.kind,
    content: j.content,
    distance: m.distance,
    score: m.score,
    created_at: j.createdAt,
    last_useful_at: j.lastUsefulAt,
    recall_count: j.recallCount,
    restatements: j.restatements,
    pinned: j.pinned,
    origin: j.origin,
    agent: j.agent,
    client: j.client,
    restated_by: j.restatedBy,
    conflicts: j.conflicts,
    superseded_by: j.supersededBy,
    supersedes: j.supersedes,
  };
}

const clip = (s: string) => (s.length > 160 ? `${s.slice(0, 157)}...` : s);

function render(memories: readonly RecalledMemory[]): string {
  if (memories.length === 0) return 'no memories matched';
  const lines = memories.map((m, i) => {
    const replaced = m.supersedes.length > 0 ? ` [replaces ${m.supersedes.join(', ')}]` : '';
    const old = m.supersededBy ? ` [superseded by ${m.supersededBy}]` : '';
    return `${i + 1}. (${m.kind}, score=${m.score.toFixed(4)}, d=${m.distance.toFixed(3)}, id ${m.id}) ${clip(m.content)}${replaced}${old}`;
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
        'Each comes with its provenance; a memory that replaced an earlier one (an update the judge found contradicting it) names it in `supersedes`. ' +
        'Superseded memories are left out unless include_superseded is true; then they come after the current ones, each naming its replacement in `superseded_by`. ' +
        "A memory found also brings the next two remembered after it with the same origin and kind (the same conversation or document) that are still kept, from the next four, ranked below it, in at most 4 of 10 places: an answer often follows what shares the question's words. Recency orders only what the query cannot tell apart: of two short memories on one subject the newer ranks first when it keeps the query's names and numbers, never a newer memory about someone or something else that reads alike. " +
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
        include_superseded: z
          .boolean()
          .optional()
          .describe('also return memories a newer one replaced (default false): the history of an updated fact, newest first'),
      },
      outputSchema: { memories: z.array(recalledSchema) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(context, 'recall', async () => {
        const { include_superseded: includeSuperseded, ...rest } = args;
        const memories = await context.memory.recall(context.principal, { ...rest, includeSuperseded });
        return success({ memories: memories.map(recalledOut) }, render(memories));
      }),
  );
}
