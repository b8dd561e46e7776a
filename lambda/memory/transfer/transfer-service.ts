import type { Clock } from '../../ports/clock.js';
import type { CurationStore, JournalPage } from '../../ports/curation-store.js';
import type { MemoryPage, PageStore } from '../../ports/page-store.js';
import type { Principal, Scope } from '../model.js';
import { kindCutoffs } from '../policy/expiry.js';
import { kindsOf } from '../policy/kinds.js';
import type { CurationRules } from '../model.js';
import type { Importer, ImportOptions, ImportReport } from './importer.js';

export interface TransferServiceDeps {
  /** An export reads through the page's listing and the journal. */
  readonly page: Pick<PageStore, 'browse'>;
  readonly curation: Pick<CurationStore, 'journal'>;
  readonly importer: Importer;
  readonly clock: Clock;
  readonly rules: CurationRules;
}

/** Pages an export reads: memories, then journal lines. */
const EXPORT_PAGE = { memories: 200, journal: 1000 } as const;

const scopeOf = (p: Principal): Scope => ({ region: p.region, userId: p.userId });

/**
 * Export and import (docs/export-format.md, decision 0075): an export reads the caller's memories
 * and journal page by page, changing nothing; an import writes a file into the caller's memory,
 * checked whole first, then in steps that a second import of the same file finishes.
 */
export class TransferService {
  constructor(private readonly deps: TransferServiceDeps) {}

  /** One page of the caller's memories for an export file, newest first. */
  async exportMemories(principal: Principal, cursor: string | undefined): Promise<MemoryPage> {
    const kinds = kindCutoffs(this.deps.rules, kindsOf(this.deps.rules), this.deps.clock.now());
    return this.deps.page.browse({ scope: scopeOf(principal), kinds, pageSize: EXPORT_PAGE.memories, cursor });
  }

  /** One page of the caller's journal for an export file, newest first. */
  async exportJournal(principal: Principal, cursor: string | undefined): Promise<JournalPage> {
    return this.deps.curation.journal(scopeOf(principal), EXPORT_PAGE.journal, cursor);
  }

  /** Writes an export file into the caller's memory in steps, resumable (importer.ts). */
  importMemories(principal: Principal, file: unknown, options?: ImportOptions): Promise<ImportReport> {
    return this.deps.importer.run(scopeOf(principal), file, options);
  }
}
