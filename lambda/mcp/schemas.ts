import * as z from 'zod';
import { LIMITS } from '../memory/limits.js';
import type { CurationRules } from '../memory/model.js';

/** The kinds the rules define, as an enum the client can read in the tool's input schema. */
export function kindEnum(rules: CurationRules) {
  const [first, ...rest] = Object.keys(rules.kinds);
  return z.enum([first ?? 'fact', ...rest]);
}

export const memoryId = z.guid().describe('a memory id, as returned by remember or recall');

const sourceSchema = z.object({
  agent: z.string(),
  client: z.string(),
  origin: z.string().nullable(),
  at: z.string().describe('ISO 8601'),
});

export const recalledSchema = z.object({
  id: z.string(),
  kind: z.string(),
  content: z.string(),
  distance: z.number().describe('cosine distance to the query: 0 is identical (does not order the list: score does)'),
  score: z
    .number()
    .describe('fused rank score, higher first: vector and lexical (word rarity in your own memories) ranks combined'),
  created_at: z.string(),
  last_useful_at: z.string(),
  recall_count: z.number().int(),
  restatements: z.number().int(),
  pinned: z.boolean(),
  origin: z.string().nullable(),
  agent: z.string().describe('the key name that wrote it'),
  client: z.string().describe('the MCP client name/version that wrote it'),
  restated_by: z.array(sourceSchema).describe('latest restatements, newest first'),
  conflicts: z.array(z.string()).describe('ids of memories the judge said contradict this one, either way of a supersession'),
  superseded_by: z
    .string()
    .nullable()
    .describe('the newer memory that replaced this one (only with include_superseded); null when current'),
  supersedes: z.array(z.string()).describe('ids of earlier memories this one replaced'),
});

export const journalLineSchema = z.object({
  at: z.string(),
  kind: z.string(),
  rule: z.enum(['ceiling', 'expiry', 'duplicate', 'superseded']),
  age_s: z.number().int(),
  recall_count: z.number().int(),
});

export const text = (what: string, maxBytes: number) =>
  z.string().min(1).max(maxBytes).describe(`${what} (at most ${maxBytes} bytes of UTF-8)`);

export { LIMITS };
