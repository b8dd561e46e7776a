import type { JournalLine, JournalRule, Memory, Source } from './model.js';

/**
 * A memory and a journal line as JSON: the export file's shape (docs/export-format.md), which the
 * page's API answers too. Defined once, so the file, the page and the CLI cannot drift apart; the
 * MCP tools rename its fields to their snake_case output schemas rather than write their own.
 */

/** Who wrote or restated a memory, and when. */
export interface SourceJson {
  readonly agent: string;
  readonly client: string;
  readonly origin: string | null;
  readonly at: string;
}

/** A memory with its provenance, times as ISO 8601 UTC text. */
export interface MemoryJson {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly pinned: boolean;
  readonly createdAt: string;
  readonly lastUsefulAt: string;
  readonly recallCount: number;
  readonly restatements: number;
  readonly agent: string;
  readonly client: string;
  readonly origin: string | null;
  readonly restatedBy: readonly SourceJson[];
  readonly conflicts: readonly string[];
  readonly supersededBy: string | null;
  readonly supersededAt: string | null;
  readonly supersedes: readonly string[];
}

/** A journal line: what was removed or merged, and why; never content. */
export interface JournalLineJson {
  readonly at: string;
  readonly kind: string;
  readonly rule: JournalRule;
  readonly ageSeconds: number;
  readonly recallCount: number;
}

const iso = (d: Date) => d.toISOString();

const sourceJson = (s: Source): SourceJson => ({ agent: s.agent, client: s.client, origin: s.origin, at: iso(s.at) });

/** A memory as JSON; the conflict links are copied, so the JSON never shares the memory's array. */
export function memoryJson(m: Memory): MemoryJson {
  return {
    id: m.id,
    kind: m.kind,
    content: m.content,
    pinned: m.pinned,
    createdAt: iso(m.createdAt),
    lastUsefulAt: iso(m.lastUsefulAt),
    recallCount: m.recallCount,
    restatements: m.restatements,
    agent: m.source.agent,
    client: m.source.client,
    origin: m.source.origin,
    restatedBy: m.restatedBy.map(sourceJson),
    conflicts: [...m.conflicts],
    supersededBy: m.supersededBy,
    supersededAt: m.supersededAt ? iso(m.supersededAt) : null,
    supersedes: [...m.supersedes],
  };
}

/** A journal line as JSON. */
export const journalLineJson = (l: JournalLine): JournalLineJson => ({
  at: iso(l.at),
  kind: l.kind,
  rule: l.rule,
  ageSeconds: l.ageSeconds,
  recallCount: l.recallCount,
});
