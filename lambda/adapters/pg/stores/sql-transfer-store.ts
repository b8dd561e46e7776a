import type { ImportPlan, ImportResult, LoadPlan, TransferStore } from '../../../ports/transfer-store.js';
import { checkedTerms } from '../lexemes.js';
import { IMPORT_MEMORIES, type ImportMemoriesInputs, type ImportMemoriesRow } from '../statements/transfer/import-memories.js';
import { LOAD_MEMORIES } from '../statements/transfer/load-memories.js';
import { toVectorLiteral } from '../vector.js';
import { sourceJson } from './memory-rows.js';
import type { StatementRunner } from './statement-runner.js';

/** Memories' postings, column by column, and each memory's length in terms. */
function postingsOf(
  memories: readonly { id: string; frequencies: ReadonlyMap<string, number>; passages?: ReadonlyMap<string, number> }[],
) {
  const postings = { ids: [] as string[], terms: [] as string[], frequencies: [] as number[], passages: [] as number[] };
  const lengths = memories.map((memory) => {
    let length = 0;
    for (const [term, n] of memory.frequencies) {
      postings.ids.push(memory.id);
      postings.terms.push(term);
      postings.frequencies.push(n);
      postings.passages.push(memory.passages?.get(term) ?? 1);
      length += n;
    }
    return length;
  });
  return { postings: { ...postings, terms: checkedTerms(postings.terms) }, lengths };
}

/** An import plan as the import statement takes it: every list column by column. */
export function importInputs(plan: ImportPlan): Omit<ImportMemoriesInputs, 'cellsFrom'> {
  const m = plan.memories;
  const { postings, lengths } = postingsOf(m);
  return {
    scope: plan.scope,
    memories: {
      ids: m.map((x) => x.id),
      kinds: m.map((x) => x.kind),
      contents: m.map((x) => x.content),
      fingerprints: m.map((x) => x.fingerprint),
      embeddings: m.map((x) => toVectorLiteral(x.embedding)),
      lengths,
      pinned: m.map((x) => x.pinned),
      expires: m.map((x) => x.expires),
      createdAt: m.map((x) => x.createdAt),
      lastUsefulAt: m.map((x) => x.lastUsefulAt),
      recallCounts: m.map((x) => x.recallCount),
      restatements: m.map((x) => x.restatements),
      origins: m.map((x) => x.source.origin),
      agents: m.map((x) => x.source.agent),
      clients: m.map((x) => x.source.client),
      restatedBy: m.map((x) => `[${x.restatedBy.map(sourceJson).join(',')}]`),
    },
    postings,
    links: { from: plan.links.map(([a]) => a), to: plan.links.map(([, b]) => b) },
    supersessions: {
      older: (plan.supersessions ?? []).map((x) => x.older),
      newer: (plan.supersessions ?? []).map((x) => x.newer),
      at: (plan.supersessions ?? []).map((x) => x.at),
    },
    journal: {
      at: plan.journal.map((l) => l.at),
      kinds: plan.journal.map((l) => l.kind),
      rules: plan.journal.map((l) => l.rule),
      ages: plan.journal.map((l) => l.ageSeconds),
      recallCounts: plan.journal.map((l) => l.recallCount),
    },
    kinds: plan.kinds.map((k) => ({ kind: k.kind, expiredBefore: k.expiredBefore })),
    ceilings: { kinds: plan.kinds.map((k) => k.kind), ceilings: plan.kinds.map((k) => k.ceiling) },
    pinLimit: plan.pinLimit,
    writeMemories: plan.writeMemories !== false,
  };
}

/** The import statement's answer as the port's. */
export function importResult(row: ImportMemoriesRow | undefined): ImportResult {
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

/** Imports and bulk loads over SQL: each step one statement, all or nothing. */
export class SqlTransferStore implements TransferStore {
  /** `cellsFrom`: the size from which a write marks its partition for the sweeper's cells (decision 0118). */
  constructor(
    private readonly sql: StatementRunner,
    private readonly cellsFrom: number,
  ) {}

  async importMemories(plan: ImportPlan): Promise<ImportResult> {
    // Every partition it writes to is a ceiling write's: queued, it locks them all (the user's row first).
    const partition = { scope: plan.scope, kinds: plan.kinds.map((k) => k.kind), pins: true };
    const [row] = await this.sql.ceilingWrite(partition, IMPORT_MEMORIES, { ...importInputs(plan), cellsFrom: this.cellsFrom });
    return importResult(row);
  }

  async load(plan: LoadPlan): Promise<number> {
    const { postings, lengths } = postingsOf(plan.memories);
    const [row] = await this.sql.ceilingWrite({ scope: plan.scope, kinds: [plan.kind], pins: false }, LOAD_MEMORIES, {
      scope: plan.scope,
      kind: plan.kind,
      ids: plan.memories.map((m) => m.id),
      contents: plan.memories.map((m) => m.content),
      fingerprints: plan.memories.map((m) => m.fingerprint),
      embeddings: plan.memories.map((m) => toVectorLiteral(m.embedding)),
      lengths,
      at: plan.at,
      postingIds: postings.ids,
      postingTerms: postings.terms,
      postingFrequencies: postings.frequencies,
      postingPassages: postings.passages,
      expires: plan.expires,
      agent: plan.agent,
      client: plan.client,
      cellsFrom: this.cellsFrom,
    });
    return row?.written ?? 0;
  }
}
