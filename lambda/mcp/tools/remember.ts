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
  pinned: z.boolean().describe('whether the memory stored or restated is pinned now'),
  pin_limit_reached: z
    .literal(true)
    .optional()
    .describe('pinned: true was asked, but the user is at the pin limit: the memory was kept unpinned'),
  judge: z.enum(['exact', 'same', 'different', 'contradicts', 'unavailable', 'not_asked']),
};

/** What the reply says of the pin: always whether it is pinned, and at the pin limit why it is not. */
function pinOf(r: RememberResult): string {
  if (r.pinLimitReached !== undefined)
    return `; NOT pinned: the pin limit (${r.pinLimitReached}) is reached, so it was kept unpinned (unpin or forget a pinned memory, then remember it again with pinned: true)`;
  return r.pinned ? '; pinned' : '; not pinned';
}

function render(r: RememberResult): string {
  return `${said(r)}${pinOf(r)}`;
}

function said(r: RememberResult): string {
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
        'Each kind has a ceiling: at the ceiling superseded memories go first, then the least-recently-useful unpinned memory of that kind. ' +
        'The answer always says whether the memory is pinned.',
      inputSchema: {
        content: text('the memory, one claim in plain text', LIMITS.contentBytes),
        kind: kindEnum(context.memory.rules).describe('what sort of memory this is; decides ceiling and expiry'),
        pinned: z
          .boolean()
          .optional()
          .describe(
            'true pins: pinned memories never expire and are never evicted. Pins are capped per user: at the cap the memory is still stored, unpinned, and the answer says pinned: false and pin_limit_reached: true. false on a restatement of an existing memory unpins it (it can expire and be evicted again); omit to leave its pin as it is',
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
            pinned: result.pinned,
            ...(result.pinLimitReached !== undefined ? { pin_limit_reached: true as const } : {}),
          },
          render(result),
        );
      }),
  );
}
