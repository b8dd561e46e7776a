import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { journalLineJson } from '../../memory/memory-json.js';
import type { JournalLine } from '../../memory/model.js';
import type { CurationState } from '../../memory/curation/curation-service.js';
import type { ToolContext } from '../context.js';
import { journalLineSchema, LIMITS } from '../schemas.js';
import { guarded, success } from '../tool-result.js';
import { supersededGraceSeconds } from '../../memory/policy/supersession.js';

/** The journal's rules, each as the journal names it. */
const RULES_TEXT = [
  'ceiling: at a kind’s ceiling a new memory evicts superseded memories first, then the least recently useful unpinned ones',
  'expiry: an unpinned memory of a kind with a TTL leaves when it has not been useful for that long',
  'duplicate: a restatement merged into the memory it restates',
  'superseded: a memory a newer one replaced (the judge said they contradict) is deleted after its kind’s grace period, unless pinned; forgetting the newer one first makes it current again',
];

/** A journal line as `journalLineSchema` names it: the one JSON shape (memory-json.ts) in snake_case. */
function lineOut(l: JournalLine) {
  const j = journalLineJson(l);
  return { at: j.at, kind: j.kind, rule: j.rule, age_s: j.ageSeconds, recall_count: j.recallCount };
}

const outputSchema = {
  rules: z.object({
    kinds: z.record(
      z.string(),
      z.object({
        ceiling: z.number().int(),
        ttl_s: z.number().int().nullable(),
        dedup: z.boolean(),
        superseded_grace_s: z
          .number()
          .int()
          .describe('a memory a newer one superseded is deleted this long after, journaled as superseded'),
      }),
    ),
    /** The rules in force, in words: what each automatic loss in the journal means. */
    rules_text: z.array(z.string()),
    pin_limit: z.number().int(),
    journal_retention_s: z.number().int(),
    judge: z.object({ provider: z.string(), last_call_ok: z.boolean().nullable(), last_call_at: z.string().nullable() }),
    embedder: z.string(),
    /** Where the rules came from: the configuration file, `NAABA_CURATION`, or `defaults`. */
    source: z.string(),
  }),
  counts: z.object({ per_kind: z.record(z.string(), z.number().int()), pinned: z.number().int(), total: z.number().int() }),
  journal: z.object({ lines: z.array(journalLineSchema), next_cursor: z.string().optional() }),
};

function structured(state: CurationState) {
  const total = Object.values(state.counts.perKind).reduce((a, b) => a + b, 0);
  return {
    rules: {
      kinds: Object.fromEntries(
        Object.entries(state.rules.kinds).map(([kind, rule]) => [
          kind,
          {
            ceiling: rule.ceiling,
            ttl_s: rule.ttlSeconds,
            dedup: rule.dedup !== false,
            superseded_grace_s: supersededGraceSeconds(rule),
          },
        ]),
      ),
      rules_text: RULES_TEXT,
      pin_limit: state.rules.pinLimit,
      journal_retention_s: state.rules.journalRetentionSeconds,
      judge: {
        provider: state.judge.provider,
        last_call_ok: state.judge.lastCallOk,
        last_call_at: state.judge.lastCallAt?.toISOString() ?? null,
      },
      embedder: state.embedder,
      source: state.rulesSource,
    },
    counts: { per_kind: state.counts.perKind, pinned: state.counts.pinned, total },
    journal: {
      lines: state.journal.lines.map(lineOut),
      ...(state.journal.nextCursor ? { next_cursor: state.journal.nextCursor } : {}),
    },
  };
}

function render(s: ReturnType<typeof structured>): string {
  const counts = Object.entries(s.counts.per_kind).map(([k, n]) => `${k} ${n}/${s.rules.kinds[k]?.ceiling}`);
  const journal = s.journal.lines.map((l) => `${l.at} ${l.rule} ${l.kind} age ${l.age_s}s recalled ${l.recall_count}x`);
  return [
    `memories: ${counts.join(', ')}; pinned ${s.counts.pinned}/${s.rules.pin_limit}`,
    `judge: ${s.rules.judge.provider}; embedder: ${s.rules.embedder}; rules from ${s.rules.source}`,
    `superseded memories kept: ${Object.entries(s.rules.kinds)
      .map(([k, r]) => `${k} ${r.superseded_grace_s}s`)
      .join(', ')}`,
    `rules: ${s.rules.rules_text.join('; ')}`,
    journal.length > 0 ? `journal (newest first):\n${journal.join('\n')}` : 'journal: empty',
  ].join('\n');
}

export function registerCurationState(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'curation_state',
    {
      title: 'Curation state',
      description:
        'The curation rules in force (ceiling, expiry and the grace period of superseded memories per kind, pin limit, journal retention, judge), the ' +
        "caller's memory counts per kind, and the journal of automatic deletions and merges, newest first. " +
        'The journal never holds content.',
      inputSchema: {
        cursor: z.string().max(200).optional().describe('next_cursor from a previous page'),
        page_size: z
          .number()
          .int()
          .min(1)
          .max(LIMITS.journalPageMax)
          .optional()
          .describe(`journal lines per page (default ${LIMITS.journalPageDefault})`),
      },
      outputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(context, 'curation_state', async () => {
        const state = await context.memory.curationState(context.principal, {
          ...(args.cursor ? { cursor: args.cursor } : {}),
          ...(args.page_size ? { pageSize: args.page_size } : {}),
        });
        const out = structured(state);
        return success(out, render(out));
      }),
  );
}
