import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { RememberResult } from '../../memory/curation/remember.js';
import { clientFromMeta } from '../client-info.js';
import type { ToolContext } from '../context.js';
import { kindEnum, LIMITS, text } from '../schemas.js';
import { guarded, success } from '../tool-result.js';

const outputSchema = {
  id: z.string().describe('the stored memory, or the one this restatement merged into'),
  kind: z.string(),
  outcome: z.enum(['stored', 'merged', 'superseded']),
  merged_into: z.string().optional(),
  supersedes: z
    .string()
    .optional()
    .describe(
      'on superseded: the earlier memory this one replaces; on merged: the memory it replaces again, when it restates one that had been replaced',
    ),
  evicted: z.number().int().describe('least-recently-useful memories evicted to keep the kind under its ceiling'),
  judge: z.enum(['exact', 'same', 'different', 'contradicts', 'unavailable', 'not_asked']),
};

function render(r: RememberResult): string {
  const evicted =
    r.evicted > 0 ? `; evicted ${r.evicted} least-recently-useful ${r.kind} memor${r.evicted === 1 ? 'y' : 'ies'}` : '';
  switch (r.outcome) {
    case 'merged': {
      const merged = `merged into existing memory ${r.mergedInto} (${r.judge === 'exact' ? 'exact restatement' : 'judged the same claim'})`;
      return r.supersedes
        ? `${merged}; said again, it is current again and replaces ${r.supersedes}, which had replaced it (forget ${r.mergedInto} to bring that one back)`
        : merged;
    }
    case 'superseded':
      return `stored ${r.id} (${r.kind}); it contradicts and replaces ${r.supersedes}, which recall now leaves out (forget ${r.id} to bring it back)${evicted}`;
    case 'stored':
      return `stored ${r.id} (${r.kind})${evicted}`;
  }
}

export function registerRemember(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Store one memory for the calling user. A restatement of an existing memory is merged into it. ' +
        'When the judge says the new memory contradicts an existing one of the same kind (an update: the meeting moved, the number changed), ' +
        'the new one supersedes it: recall returns the new one and says which id it replaced, and leaves the old one out unless asked for superseded memories; ' +
        'the old one is deleted after a grace period (journaled as superseded), and forgetting the new one makes the old one current again, ' +
        'as does remembering the old one again word for word (it then replaces the new one). ' +
        'Each kind has a ceiling: at the ceiling superseded memories go first, then the least-recently-useful unpinned memory of that kind.',
      inputSchema: {
        content: text('the memory, one claim in plain text', LIMITS.contentBytes),
        kind: kindEnum(context.memory.rules).describe('what sort of memory this is; decides ceiling and expiry'),
        pinned: z
          .boolean()
          .optional()
          .describe(
            'true pins: pinned memories never expire and are never evicted (capped per user). false on a restatement of an existing memory unpins it (it can expire and be evicted again); omit to leave its pin as it is',
          ),
        origin: z
          .string()
          .max(LIMITS.originChars)
          .optional()
          .describe(
            'where this came from: the conversation, document or URL. Give every memory of one conversation or document the same origin, in the order they happen: recall then also returns what came right after a memory it finds (of the same kind)',
          ),
      },
      outputSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args, extra) =>
      guarded(context, 'remember', async () => {
        const client = clientFromMeta(extra._meta) ?? context.client;
        const result = await context.memory.remember(context.principal, client, args);
        return success(
          {
            id: result.id,
            kind: result.kind,
            outcome: result.outcome,
            ...(result.mergedInto ? { merged_into: result.mergedInto } : {}),
            ...(result.supersedes ? { supersedes: result.supersedes } : {}),
            evicted: result.evicted,
            judge: result.judge,
          },
          render(result),
        );
      }),
  );
}
