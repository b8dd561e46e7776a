import type { Memory, Source } from '../../../memory/model.js';
import type { RankedMemory } from '../../../ports/curation-store.js';
import type { MemoryRow } from '../sql/fragments.js';
import type { RecalledRow } from '../statements/recall/recall.js';

/** A restatement source as the `restated_by` JSON list holds it. */
interface SourceJson {
  agent: string;
  client: string;
  origin: string | null;
  at: string;
}

/** A source as one entry of a memory's `restated_by` list. */
export const sourceJson = (source: Source): string =>
  JSON.stringify({ agent: source.agent, client: source.client, origin: source.origin, at: source.at.toISOString() });

/** A memory as the statements answer it, as the domain holds it. */
export function toMemory(row: MemoryRow): Memory {
  const list = typeof row.restated_by === 'string' ? JSON.parse(row.restated_by) : row.restated_by;
  const restatedBy = (list ?? []) as SourceJson[];
  return {
    id: row.id,
    kind: row.kind,
    content: row.content,
    pinned: row.pinned,
    createdAt: new Date(row.created_at),
    lastUsefulAt: new Date(row.last_useful_at),
    recallCount: row.recall_count,
    restatements: row.restatements,
    source: { agent: row.agent, client: row.client, origin: row.origin, at: new Date(row.created_at) },
    restatedBy: restatedBy.map((s) => ({ agent: s.agent, client: s.client, origin: s.origin, at: new Date(s.at) })),
    conflicts: row.conflicts ?? [],
    supersededBy: row.superseded_by ?? null,
    supersededAt: row.superseded_at ? new Date(row.superseded_at) : null,
    supersedes: row.supersedes ?? [],
  };
}

/** A ranked memory, with its distance, fused score, and what the newer-first rule reads of it. */
export const toRanked = (row: RecalledRow): RankedMemory => ({
  ...toMemory(row),
  distance: Number(row.distance),
  score: Number(row.score),
  length: Number(row.term_count),
  words: Number(row.words),
  sameSubject: row.same_subject ?? [],
});
