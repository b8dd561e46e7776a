import { readFileSync } from 'node:fs';
import * as z from 'zod';
import type { CurationRules, KindRule } from '../memory/model.js';
import { DEFAULT_RULES } from '../memory/policy/kinds.js';
import { ConfigError } from './errors.js';
import { parseDuration } from './duration.js';

const duration = z.string().refine((s) => parseDuration(s) !== undefined, {
  message: 'expected a duration such as "90s", "15m", "24h" or "30d"',
});

const kindSchema = z.strictObject({
  ceiling: z.number().int().min(1).max(100_000),
  ttl: duration.nullable().optional(),
  dedup: z.boolean().optional(),
  /** How long a superseded memory of the kind is kept (policy/supersession.ts); seven days when absent. */
  superseded_grace: duration.optional(),
});

const fileSchema = z.strictObject({
  kinds: z
    .record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'kind names: lowercase letter, then up to 31 of a-z 0-9 _ -'), kindSchema)
    .refine((kinds) => Object.keys(kinds).length > 0, { message: 'at least one kind is needed' })
    .optional(),
  pin_limit: z.number().int().min(0).max(10_000).optional(),
  journal_retention: duration.optional(),
});

/** Reads the curation config file (`--config FILE` or `NAABA_CONFIG`). */
export function readCurationFile(path: string): CurationRules {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`curation config ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseCuration(text, `curation config ${path}`);
}

/**
 * Parses curation rules (a file's text, or `NAABA_CURATION` inline in Lambda): kinds with ceilings
 * and TTLs, the pin limit and the journal retention, with DESIGN §4 defaults for what is left out.
 * Any bad field stops start-up with a message that names it.
 */
export function parseCuration(text: string, label: string): CurationRules {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${label}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ConfigError(`${label} is invalid:\n  ${problems.join('\n  ')}`);
  }
  const file = parsed.data;
  const kinds: Record<string, KindRule> = file.kinds
    ? Object.fromEntries(
        Object.entries(file.kinds).map(([kind, rule]) => [
          kind,
          {
            ceiling: rule.ceiling,
            ttlSeconds: rule.ttl ? (parseDuration(rule.ttl) ?? null) : null,
            ...(rule.dedup === false ? { dedup: false } : {}),
            ...(rule.superseded_grace ? { supersededGraceSeconds: parseDuration(rule.superseded_grace) } : {}),
          },
        ]),
      )
    : DEFAULT_RULES.kinds;
  return {
    kinds,
    pinLimit: file.pin_limit ?? DEFAULT_RULES.pinLimit,
    journalRetentionSeconds: file.journal_retention
      ? (parseDuration(file.journal_retention) ?? DEFAULT_RULES.journalRetentionSeconds)
      : DEFAULT_RULES.journalRetentionSeconds,
  };
}
