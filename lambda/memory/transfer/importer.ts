import type { Clock } from '../../ports/clock.js';
import type { ImportedMemory, ImportPlan, ImportResult, TransferStore } from '../../ports/transfer-store.js';
import { fingerprint } from '../canonical.js';
import { InvalidInputError } from '../errors.js';
import type { ExpiredMemories } from '../expired-memories.js';
import type { LexicalAnalyzer } from '../lexical.js';
import type { CurationRules, Scope } from '../model.js';
import { expiredBefore, isLive } from '../policy/expiry.js';
import { fitsWithoutEviction } from '../policy/eviction.js';
import { kindRule } from '../policy/kinds.js';
import { pinsFit } from '../policy/pins.js';
import type { MemoryJson } from '../memory-json.js';
import { parseTransfer, type TransferDocument } from './transfer-file.js';

/**
 * An import of an export file into the caller's memory (docs/export-format.md): checked whole,
 * embedded with this server's embedder, then written by one statement that either writes
 * everything or nothing — never past a ceiling or the pin limit, never evicting.
 */

/** What an import did, in numbers a person can check against the file. */
export interface ImportReport {
  /** Memories in the file. */
  readonly memories: number;
  readonly written: number;
  /** Equal (same kind and text) to a memory the caller already had: not written again. */
  readonly alreadyPresent: number;
  /** Expired by the time of the import (a session memory exported a day ago): not written. */
  readonly expired: number;
  readonly links: number;
  /** Journal lines added; lines the caller already had are not added again. */
  readonly journalLines: number;
}

/** The import would pass a ceiling or the pin limit: nothing was written, and the message says by how much. */
export class ImportRefusedError extends InvalidInputError {
  override name = 'ImportRefusedError';
}

export interface ImporterDeps {
  readonly store: TransferStore;
  /** Clears a kind's expired memories before the import writes beside them. */
  readonly expired: ExpiredMemories;
  readonly rules: CurationRules;
  readonly clock: Clock;
  readonly analyzer: LexicalAnalyzer;
  /** The service's embedder call, with its dimension and finiteness checks. */
  readonly embed: (text: string) => Promise<number[]>;
  readonly newId: () => string;
}

/** Embeddings made at once: a provider's rate limit is shared by every caller. */
const EMBED_CONCURRENCY = 4;

async function embedAll(texts: readonly string[], embed: (text: string) => Promise<number[]>): Promise<number[][]> {
  const out: number[][] = new Array(texts.length);
  let next = 0;
  const worker = async () => {
    while (next < texts.length) {
      const i = next++;
      out[i] = await embed(texts[i] ?? '');
    }
  };
  await Promise.all(Array.from({ length: Math.min(EMBED_CONCURRENCY, texts.length) }, worker));
  return out;
}

export class Importer {
  constructor(private readonly deps: ImporterDeps) {}

  /** Whether a memory of the file is still live now, by the liveness rule (policy/expiry.ts). */
  private live(m: MemoryJson, now: Date): boolean {
    const cutoff = expiredBefore(kindRule(this.deps.rules, m.kind), now);
    return isLive({ id: m.id, pinned: m.pinned, lastUsefulAt: new Date(m.lastUsefulAt) }, cutoff);
  }

  /**
   * Each memory's exact-restatement key. A kind without dedup keys each memory by its file id, so
   * importing the same file twice still finds what the first import wrote.
   */
  private fingerprints(kept: readonly MemoryJson[]): string[] {
    const seen = new Map<string, string>();
    return kept.map((m) => {
      if (kindRule(this.deps.rules, m.kind).dedup === false) return `${fingerprint(m.content)}#${m.id}`;
      const print = fingerprint(m.content);
      const twin = seen.get(`${m.kind}|${print}`);
      if (twin) {
        throw new InvalidInputError(
          `memories ${twin} and ${m.id} are the same ${m.kind} (equal up to case, accents, spacing and punctuation); a memory keeps one of them: nothing was imported`,
        );
      }
      seen.set(`${m.kind}|${print}`, m.id);
      return print;
    });
  }

  async run(scope: Scope, file: unknown): Promise<ImportReport> {
    const now = this.deps.clock.now();
    const doc: TransferDocument = parseTransfer(file, this.deps.rules, now);
    const kept = doc.memories.filter((m) => this.live(m, now));
    const prints = this.fingerprints(kept);
    const ids = new Map(kept.map((m) => [m.id, this.deps.newId()] as const));
    const vectors = await embedAll(
      kept.map((m) => m.content),
      this.deps.embed,
    );
    const memories: ImportedMemory[] = kept.map((m, i) => ({
      id: ids.get(m.id) ?? '',
      kind: m.kind,
      content: m.content,
      fingerprint: prints[i] ?? '',
      embedding: vectors[i] ?? [],
      frequencies: this.deps.analyzer.frequencies(m.content),
      pinned: m.pinned,
      expires: !m.pinned && kindRule(this.deps.rules, m.kind).ttlSeconds !== null,
      createdAt: new Date(m.createdAt),
      lastUsefulAt: new Date(m.lastUsefulAt),
      recallCount: m.recallCount,
      restatements: m.restatements,
      source: { agent: m.agent, client: m.client, origin: m.origin },
      restatedBy: m.restatedBy.map((s) => ({ ...s, at: new Date(s.at) })),
    }));
    const links = kept.flatMap((m) =>
      m.conflicts.flatMap((c) => {
        const [a, b] = [ids.get(m.id), ids.get(c)];
        return a && b ? [[a, b] as const] : [];
      }),
    );
    const kinds = [...new Set([...kept.map((m) => m.kind), ...doc.journal.map((l) => l.kind)])].sort();
    const plan: ImportPlan = {
      scope,
      kinds: kinds.map((kind) => ({
        kind,
        ceiling: kindRule(this.deps.rules, kind).ceiling,
        expiredBefore: expiredBefore(kindRule(this.deps.rules, kind), now),
      })),
      pinLimit: this.deps.rules.pinLimit,
      memories,
      links,
      journal: doc.journal.map((l) => ({ ...l, at: new Date(l.at) })),
    };
    // An expired memory of the same text would stand in the new one's way: it leaves first, as expiry.
    for (const k of plan.kinds) if (k.expiredBefore) await this.deps.expired.clear(scope, k.kind);
    const result = await this.deps.store.importMemories(plan);
    if (result.status === 'refused') throw new ImportRefusedError(this.refusal(result));
    return {
      memories: doc.memories.length,
      written: result.written,
      alreadyPresent: result.alreadyPresent,
      expired: doc.memories.length - kept.length,
      links: result.links,
      journalLines: result.journalLines,
    };
  }

  /** Says which limit the import would pass, and by how much. */
  private refusal(result: Extract<ImportResult, { status: 'refused' }>): string {
    const over = result.kinds.flatMap((k) => {
      const ceiling = kindRule(this.deps.rules, k.kind).ceiling;
      return !fitsWithoutEviction(k.have, k.adding, ceiling)
        ? [`${k.kind}: ${k.have} kept + ${k.adding} new would be ${k.have + k.adding}, over its ceiling of ${ceiling}`]
        : [];
    });
    const { have, adding } = result.pins;
    if (!pinsFit(have, adding, this.deps.rules.pinLimit)) {
      over.push(
        `pins: ${have} pinned + ${adding} new would be ${have + adding}, over the pin limit of ${this.deps.rules.pinLimit}`,
      );
    }
    return `the import would pass a limit, so nothing was imported (an import never evicts): ${over.join('; ')}. Forget some memories first, or raise the limit in the curation file.`;
  }
}
