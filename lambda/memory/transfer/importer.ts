import type { Clock } from '../../ports/clock.js';
import type { ImportedMemory, ImportPlan, ImportResult, TransferStore } from '../../ports/transfer-store.js';
import { fingerprint } from '../canonical.js';
import { InvalidInputError } from '../errors.js';
import type { ExpiredMemories } from '../expired-memories.js';
import type { LexicalAnalyzer } from '../lexical.js';
import type { CurationRules, Scope } from '../model.js';
import { expiredBefore, inExpiryIndex, isLive } from '../policy/expiry.js';
import { fitsWithoutEviction } from '../policy/eviction.js';
import { kindRule } from '../policy/kinds.js';
import { pinsFit } from '../policy/pins.js';
import type { ImportReport } from './import-report.js';
import type { TransferMemoryJson } from './transfer-file.js';
import { parseTransfer, type TransferDocument } from './transfer-file.js';

/**
 * An import of an export file into the caller's memory (docs/export-format.md, decision 0075 as
 * issue 34 revised it): checked whole — the file, then whether all of it fits under every ceiling
 * and the pin limit — embedded with this server's embedder, then written in steps of about one
 * large memory each, so that no other caller waits behind one long statement, and last its
 * conflict links and journal lines. Never past a ceiling or the pin limit, never evicting.
 * Resumable: each step skips the memories already there, so an import cut off (a crash, a lost
 * connection) is finished by importing the same file again, which writes what is missing.
 */

export type { ImportReport } from './import-report.js';

/** How an import call runs: who hears its progress, and how long it may write before it answers. */
export interface ImportOptions {
  readonly progress?: (p: ImportProgress) => void;
  /**
   * Start no new step once the call has run this long, counted from its start and whether or not
   * a step wrote anything (at least one step runs); no bound when absent. A call then ends within
   * this plus one step (decision 0147).
   */
  readonly stopAfterMs?: number;
}

/** How far an import has come: memories of the file handled, of how many to write. */
export interface ImportProgress {
  readonly done: number;
  readonly total: number;
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
  /**
   * How long to rest after each step, as a multiple of the time the step took: on the embedded
   * database, where one statement runs at a time, 3 leaves other callers three quarters of it.
   * 0 when absent.
   */
  readonly restPerStep?: number;
  /** Milliseconds from a fixed origin, never going back: what the call's bound is measured by. `performance.now` when absent. */
  readonly stopwatch?: () => number;
}

/** A step writes memories up to about this much content (one memory of the largest size), and at most this many. */
const STEP = { bytes: 8_192, memories: 25 } as const;

/**
 * The memories in steps of bounded work, in the order they were made, so places within an origin
 * follow on; memories made at the same instant keep the file's order. Never the new ids' order:
 * they are drawn afresh by each call, and a resumed import must walk the same steps as the call
 * before it, or it writes ahead while its report counts only the steps it walked.
 */
function steps(memories: readonly ImportedMemory[]): ImportedMemory[][] {
  // Array.prototype.sort is stable: ties stay in the file's order.
  const ordered = [...memories].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const out: ImportedMemory[][] = [];
  let bytes = 0;
  for (const m of ordered) {
    const size = Buffer.byteLength(m.content);
    const last = out.at(-1);
    if (last && last.length < STEP.memories && bytes + size <= STEP.bytes) {
      last.push(m);
      bytes += size;
    } else {
      out.push([m]);
      bytes = size;
    }
  }
  return out;
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
  private live(m: TransferMemoryJson, now: Date): boolean {
    const cutoff = expiredBefore(kindRule(this.deps.rules, m.kind), now);
    return isLive({ id: m.id, pinned: m.pinned, lastUsefulAt: new Date(m.lastUsefulAt) }, cutoff);
  }

  /**
   * Each memory's exact-restatement key. A kind without dedup keys each memory by its file id, so
   * importing the same file twice still finds what the first import wrote.
   */
  private fingerprints(kept: readonly TransferMemoryJson[]): string[] {
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

  async run(scope: Scope, file: unknown, options: ImportOptions = {}): Promise<ImportReport> {
    const began = this.time();
    const now = this.deps.clock.now();
    const doc: TransferDocument = parseTransfer(file, this.deps.rules, now);
    const kept = doc.memories.filter((m) => this.live(m, now));
    const prints = this.fingerprints(kept);
    const ids = new Map(kept.map((m) => [m.id, this.deps.newId()] as const));
    // What finds a memory again, without its embedding and postings: a step fills those in (`filled`) only when it runs.
    const memories: ImportedMemory[] = kept.map((m, i) => ({
      id: ids.get(m.id) ?? '',
      kind: m.kind,
      content: m.content,
      fingerprint: prints[i] ?? '',
      embedding: [],
      frequencies: new Map(),
      passages: new Map(),
      pinned: m.pinned,
      expires: inExpiryIndex({ pinned: m.pinned, kindExpires: kindRule(this.deps.rules, m.kind).ttlSeconds !== null }),
      createdAt: new Date(m.createdAt),
      lastUsefulAt: new Date(m.lastUsefulAt),
      recallCount: m.recallCount,
      restatements: m.restatements,
      source: { agent: m.agent, client: m.client, origin: m.origin },
      restatedBy: m.restatedBy.map((s) => ({ ...s, at: new Date(s.at) })),
    }));
    // A memory replaced by one that is not imported (it expired) is current again, as forgetting the newer makes it.
    const supersessions = kept.flatMap((m) => {
      const [older, newer] = [ids.get(m.id), m.supersededBy === null ? undefined : ids.get(m.supersededBy)];
      return older && newer && m.supersededAt ? [{ older, newer, at: new Date(m.supersededAt) }] : [];
    });
    // The two sides of a supersession are linked too, as remember links them (each names the other).
    const links = [
      ...kept.flatMap((m) =>
        m.conflicts.flatMap((c) => {
          const [a, b] = [ids.get(m.id), ids.get(c)];
          return a && b ? [[a, b] as const] : [];
        }),
      ),
      ...supersessions.flatMap((x) => [[x.older, x.newer] as const, [x.newer, x.older] as const]),
    ];
    const kinds = [...new Set([...kept.map((m) => m.kind), ...doc.journal.map((l) => l.kind)])].sort();
    const base = { memories: doc.memories.length, written: 0, alreadyPresent: 0, expired: doc.memories.length - kept.length };
    // Nothing to write (a new account's export, or every memory expired): no kind to check, done.
    if (kinds.length === 0) return { ...base, links: 0, journalLines: 0, steps: 0, complete: true };
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
    // First the whole file, written nowhere: does all of it fit? Then nothing is written when it does not.
    const check = await this.deps.store.importMemories({ ...plan, links: [], journal: [], writeMemories: false });
    if (check.status === 'refused') throw new ImportRefusedError(this.refusal(check));
    const parts = steps(memories);
    // A resumed import: the steps earlier calls wrote are passed over whole, found in a few checks, never walked.
    const skipped = check.alreadyPresent === 0 ? 0 : await this.presentSteps(plan, parts);
    let present = parts.slice(0, skipped).reduce((n, part) => n + part.length, 0);
    let written = 0;
    let done = present;
    let taken = 0;
    if (skipped > 0) options.progress?.({ done, total: memories.length });
    const left = () =>
      options.stopAfterMs === undefined ? Number.POSITIVE_INFINITY : options.stopAfterMs - (this.time() - began);
    // The longest step so far: a step starts only when one as long still ends within the bound.
    let longest = 0;
    for (const part of parts.slice(skipped)) {
      // Every step counts against the bound, one that writes nothing too; the first always runs, so each call goes on.
      if (taken > 0 && left() <= longest) break;
      const started = this.time();
      const step = await this.deps.store.importMemories({ ...plan, memories: await this.filled(part), links: [], journal: [] });
      // Someone else wrote in between and a ceiling is now in the way: what is written stays, and says so.
      if (step.status === 'refused') throw new ImportRefusedError(this.refusal(step, { written, of: memories.length }));
      written += step.written;
      present += step.alreadyPresent;
      done += part.length;
      taken += 1;
      longest = Math.max(longest, this.time() - started);
      options.progress?.({ done, total: memories.length });
      await this.rest(this.time() - started, left());
    }
    const counts = { ...base, written, alreadyPresent: present };
    if (done < memories.length) return { ...counts, links: 0, journalLines: 0, steps: taken, complete: false };
    const last = await this.deps.store.importMemories({ ...plan, supersessions, writeMemories: false });
    if (last.status === 'refused') throw new ImportRefusedError(this.refusal(last, { written, of: memories.length }));
    return { ...counts, links: last.links, journalLines: last.journalLines, steps: taken, complete: true };
  }

  private time(): number {
    return this.deps.stopwatch?.() ?? performance.now();
  }

  /**
   * How many leading steps are there already, whole: the part an earlier call of the same file
   * wrote, found by halving (a longer prefix present means every shorter one is), in about
   * log2(steps) checks that write nothing. Memories of later steps that are there are found by
   * their step, as before.
   */
  private async presentSteps(plan: ImportPlan, parts: readonly ImportedMemory[][]): Promise<number> {
    const present = async (n: number) => {
      const prefix = parts.slice(0, n).flat();
      const result = await this.deps.store.importMemories({
        ...plan,
        memories: prefix,
        links: [],
        journal: [],
        writeMemories: false,
      });
      return result.status === 'imported' && result.alreadyPresent === prefix.length;
    };
    let [lo, hi] = [0, parts.length];
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (await present(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** A step's memories with their embeddings and postings, made only for a step that runs. */
  private async filled(part: readonly ImportedMemory[]): Promise<ImportedMemory[]> {
    const vectors = await embedAll(
      part.map((m) => m.content),
      this.deps.embed,
    );
    return part.map((m, i) => ({
      ...m,
      embedding: vectors[i] ?? [],
      frequencies: this.deps.analyzer.frequencies(m.content),
      passages: this.deps.analyzer.passages(m.content),
    }));
  }

  /**
   * Leaves the database to other callers for a while after a step, in proportion to the step's
   * time, but never past the call's bound (`leftMs`).
   */
  private async rest(stepMs: number, leftMs: number): Promise<void> {
    const ms = Math.min(stepMs * (this.deps.restPerStep ?? 0), leftMs);
    if (ms >= 1) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Says which limit the import would pass, and by how much. */
  private refusal(result: Extract<ImportResult, { status: 'refused' }>, partial?: { written: number; of: number }): string {
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
    if (partial) {
      return `the import stopped after writing ${partial.written} of ${partial.of} memories: memories written meanwhile leave no room (an import never evicts): ${over.join('; ')}. What was written stays; forget some memories, then import the same file again to write the rest.`;
    }
    return `the import would pass a limit, so nothing was imported (an import never evicts): ${over.join('; ')}. Forget some memories first, or raise the limit in the curation file.`;
  }
}
