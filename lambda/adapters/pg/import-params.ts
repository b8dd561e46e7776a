import type { ImportPlan, ImportResult } from '../../ports/memory-store.js';
import { toVectorLiteral } from './vector.js';

/** How an import plan becomes the import statement's parameters and its answer an ImportResult (write-sql.ts, importSql). */

/** The import statement's one row. */
export interface ImportRow {
  ok: boolean;
  written: number;
  present: number;
  linked: number;
  journaled: number;
  pins_have: number;
  pins_adding: number;
  /** `kind:have:adding` per kind. */
  room: string[];
}

const sourceJson = (s: ImportPlan['memories'][number]['restatedBy'][number]) => ({
  agent: s.agent,
  client: s.client,
  origin: s.origin,
  at: s.at.toISOString(),
});

/** $3 to $31: the memories column by column, their postings, links, journal lines, ceilings and the pin limit. */
export function importParams(plan: ImportPlan, checkedTerms: (terms: readonly string[]) => string[]): unknown[] {
  const m = plan.memories;
  const postings = { ids: [] as string[], terms: [] as string[], tf: [] as number[] };
  const lengths = m.map((memory) => {
    let length = 0;
    for (const [term, n] of memory.frequencies) {
      postings.ids.push(memory.id);
      postings.terms.push(term);
      postings.tf.push(n);
      length += n;
    }
    return length;
  });
  return [
    plan.scope.region,
    plan.scope.userId,
    m.map((x) => x.id),
    m.map((x) => x.kind),
    m.map((x) => x.content),
    m.map((x) => x.fingerprint),
    m.map((x) => toVectorLiteral(x.embedding)),
    lengths,
    m.map((x) => x.pinned),
    m.map((x) => x.expires),
    m.map((x) => x.createdAt),
    m.map((x) => x.lastUsefulAt),
    m.map((x) => x.recallCount),
    m.map((x) => x.restatements),
    m.map((x) => x.source.origin),
    m.map((x) => x.source.agent),
    m.map((x) => x.source.client),
    m.map((x) => JSON.stringify(x.restatedBy.map(sourceJson))),
    postings.ids,
    checkedTerms(postings.terms),
    postings.tf,
    plan.links.map(([a]) => a),
    plan.links.map(([, b]) => b),
    plan.journal.map((l) => l.at),
    plan.journal.map((l) => l.kind),
    plan.journal.map((l) => l.rule),
    plan.journal.map((l) => l.ageSeconds),
    plan.journal.map((l) => l.recallCount),
    plan.kinds.map((k) => k.kind),
    plan.kinds.map((k) => k.ceiling),
    plan.pinLimit,
  ];
}

export function importResult(row: ImportRow | undefined): ImportResult {
  if (!row) throw new Error('the import statement answered no row');
  if (row.ok) {
    return {
      status: 'imported',
      written: row.written,
      alreadyPresent: row.present,
      links: row.linked,
      journalLines: row.journaled,
    };
  }
  const kinds = row.room.map((entry) => {
    // A kind's name may hold a colon: the two counts are the last two fields.
    const parts = entry.split(':');
    const adding = Number(parts.pop());
    const have = Number(parts.pop());
    return { kind: parts.join(':'), have, adding };
  });
  return { status: 'refused', kinds, pins: { have: row.pins_have, adding: row.pins_adding } };
}
