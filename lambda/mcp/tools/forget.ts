import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { InvalidInputError } from '../../memory/errors.js';
import type { ForgetInput } from '../../memory/curation/curation-service.js';
import type { ToolContext } from '../context.js';
import { kindEnum, LIMITS, memoryId } from '../schemas.js';
import { guarded, success } from '../tool-result.js';

interface ForgetArgs {
  ids?: string[] | undefined;
  all?: boolean | undefined;
  kind?: string | undefined;
}

/** Exactly one of `ids` or `all: true`; `kind` only narrows `all`. */
function forgetInput(args: ForgetArgs): ForgetInput {
  if (args.all === true && args.ids === undefined) return { all: true, ...(args.kind ? { kind: args.kind } : {}) };
  if (args.ids !== undefined && args.all === undefined && args.kind === undefined) return { ids: args.ids };
  throw new InvalidInputError('give either ids, or all: true (optionally with kind); not both, not neither');
}

export function registerForget(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        "Delete the calling user's memories: by id, or all of them (optionally of one kind). Ids that are not " +
        "the caller's are treated as unknown. Deletions asked for leave no journal line; forgetting everything " +
        'also removes the caller’s journal lines.',
      inputSchema: {
        ids: z.array(memoryId).min(1).max(LIMITS.forgetIdsMax).optional().describe(`up to ${LIMITS.forgetIdsMax} memory ids`),
        all: z.literal(true).optional().describe('forget every memory (of `kind`, if given)'),
        kind: kindEnum(context.memory.rules).optional().describe('with all: only this kind'),
      },
      outputSchema: {
        count: z.number().int().describe('memories deleted'),
        deleted: z.array(z.string()).describe('ids deleted (when forgetting by id)'),
        journal_lines_removed: z.number().int(),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(context, 'forget', async () => {
        const result = await context.memory.forget(context.principal, forgetInput(args));
        const journal = result.journalLinesRemoved > 0 ? ` and ${result.journalLinesRemoved} journal lines` : '';
        return success(
          { count: result.count, deleted: [...result.deleted], journal_lines_removed: result.journalLinesRemoved },
          `forgot ${result.count} memor${result.count === 1 ? 'y' : 'ies'}${journal}`,
        );
      }),
  );
}
