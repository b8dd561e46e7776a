import { decodeCursor, encodeCursor } from '../../../memory/cursor.js';
import type { Scope } from '../../../memory/model.js';
import type { ExpiryCutoff } from '../../../memory/policy/expiry.js';
import { NO_SUBJECT } from '../../../memory/policy/recency.js';
import type {
  CurationStore,
  Forgotten,
  InsertPlan,
  InsertResult,
  JournalPage,
  MemoryCounts,
  MergePlan,
  MergeResult,
  NeighbourQuery,
  Neighbours,
  RankedMemory,
  RecallQuery,
} from '../../../ports/curation-store.js';
import { checkedTerms } from '../lexemes.js';
import { COUNTS } from '../statements/curation/counts.js';
import { EXPIRE_PARTITION } from '../statements/curation/expire-partition.js';
import { FORGET_ALL } from '../statements/curation/forget-all.js';
import { FORGET_IDS } from '../statements/curation/forget-ids.js';
import { INSERT_MEMORY } from '../statements/curation/insert-memory.js';
import { JOURNAL_PAGE } from '../statements/curation/journal-page.js';
import { MERGE_MEMORY } from '../statements/curation/merge-memory.js';
import { NEIGHBOURS } from '../statements/curation/neighbours.js';
import { WORDS_READ } from '../../../memory/policy/supersession.js';
import { RECALL, type RecallInputs } from '../statements/recall/recall.js';
import { toVectorLiteral } from '../vector.js';
import { sourceJson, toRanked } from './memory-rows.js';
import type { StatementRunner } from './statement-runner.js';

/** Recall's inputs as the statement takes them: the vector as its literal, the terms checked, the fusion by name. */
export function recallInputs(query: RecallQuery, touch: boolean): RecallInputs {
  const f = query.fusion;
  return {
    scope: query.scope,
    embedding: toVectorLiteral(query.embedding),
    terms: checkedTerms(query.terms),
    kinds: query.kinds,
    candidates: query.candidates,
    depth: f.depth,
    limit: query.limit,
    now: query.now,
    fusion: {
      k: f.k,
      vectorWeight: f.vectorWeight,
      lexicalWeight: f.lexicalWeight,
      farthest: query.farthest,
      following: f.following,
      followingShare: f.followingShare,
      // No places are read when nothing is to follow.
      followingReach: f.following > 0 ? f.followingReach : 0,
      cellRows: f.cellRows,
      followerPlaces: f.followerPlaces,
    },
    sameSubject: query.sameSubject ?? NO_SUBJECT,
    lexical: query.lexical,
    touch,
    includeSuperseded: query.includeSuperseded ?? false,
  };
}

/** The four tools' storage over SQL: every call one statement (decision 0004). */
export class SqlCurationStore implements CurationStore {
  /** `cellsFrom`: the size from which a write marks its partition for the sweeper's cells (decision 0118). */
  constructor(
    private readonly sql: StatementRunner,
    private readonly cellsFrom: number,
  ) {}

  async neighbours(query: NeighbourQuery): Promise<Neighbours> {
    const rows = await this.sql.read(NEIGHBOURS, {
      ...query,
      embedding: toVectorLiteral(query.embedding),
      judged: query.judged ?? 1,
      terms: checkedTerms(query.terms ?? []),
      wordsRead: WORDS_READ,
    });
    const words = rows.find((r) => r.role === 'words');
    const candidates = rows
      .filter((r) => r.role === 'nearest')
      .map((r) => ({ id: r.id, content: r.content ?? '', distance: Number(r.distance) }))
      .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const exact = rows.find((r) => r.role === 'exact');
    return {
      nearest: candidates[0],
      candidates,
      byWords: words ? { id: words.id, content: words.content ?? '', distance: Number(words.distance) } : undefined,
      exact: exact ? { id: exact.id, live: exact.live } : undefined,
    };
  }

  async expirePartition(scope: Scope, kind: string, expiredBefore: Date, now: Date): Promise<number> {
    const [row] = await this.sql.read(EXPIRE_PARTITION, { scope, kind, expiredBefore, now });
    return row?.expired ?? 0;
  }

  async insert(plan: InsertPlan, now: Date): Promise<InsertResult> {
    const terms = checkedTerms(plan.terms);
    const frequencies = plan.frequencies ?? terms.map(() => 1);
    if (frequencies.length !== terms.length) throw new Error('a term frequency is needed for each term');
    const passages = plan.passages ?? terms.map(() => 1);
    if (passages.length !== terms.length) throw new Error('a passage mask is needed for each term');
    const [row] = await this.sql.ceilingWrite({ scope: plan.scope, kinds: [plan.kind], pins: plan.pinned }, INSERT_MEMORY, {
      scope: plan.scope,
      id: plan.id,
      kind: plan.kind,
      content: plan.content,
      fingerprint: plan.fingerprint,
      embedding: toVectorLiteral(plan.embedding),
      pinned: plan.pinned,
      now,
      origin: plan.source.origin,
      agent: plan.source.agent,
      client: plan.source.client,
      source: sourceJson(plan.source),
      sourcesKept: plan.sourcesKept,
      ceiling: plan.ceiling,
      pinLimit: plan.pinLimit,
      conflictsWith: plan.conflictsWith ?? null,
      terms,
      frequencies,
      passages,
      length: frequencies.reduce((sum, n) => sum + n, 0),
      expiredBefore: plan.expiredBefore,
      cellsFrom: this.cellsFrom,
    });
    if (!row?.pin_ok) return { status: 'pin_limit' };
    if (!row.room_ok) return { status: 'kind_full' };
    if (row.id === null) return { status: 'expired_twin' };
    return row.id === plan.id ? { status: 'inserted', id: row.id, evicted: row.evicted } : { status: 'merged', id: row.id };
  }

  async merge(plan: MergePlan, now: Date): Promise<MergeResult> {
    const inputs = {
      scope: plan.scope,
      targetId: plan.targetId,
      pin: plan.pin === 'pin',
      unpin: plan.pin === 'unpin',
      now,
      source: sourceJson(plan.source),
      sourcesKept: plan.sourcesKept,
      pinLimit: plan.pinLimit,
      expiredBefore: plan.expiredBefore,
    };
    // Only a pin is something a limit depends on; a plain merge adds commutatively.
    const [row] = inputs.pin
      ? await this.sql.ceilingWrite({ scope: plan.scope, kinds: [], pins: true }, MERGE_MEMORY, inputs)
      : await this.sql.read(MERGE_MEMORY, inputs);
    if (!row || row.found === 0) return { status: 'gone' };
    if (!row.pin_ok) return { status: 'pin_limit' };
    if (row.updated !== 1) return { status: 'gone' };
    return row.revived_over
      ? { status: 'merged', id: plan.targetId, supersedes: row.revived_over }
      : { status: 'merged', id: plan.targetId };
  }

  async recall(query: RecallQuery): Promise<RankedMemory[]> {
    return (await this.sql.read(RECALL, recallInputs(query, true))).map(toRanked);
  }

  async forgetIds(scope: Scope, ids: readonly string[], expiry: readonly ExpiryCutoff[]): Promise<string[]> {
    return (await this.sql.read(FORGET_IDS, { scope, ids: [...ids], expiry })).map((r) => r.id);
  }

  async forgetAll(scope: Scope, kind: string | undefined, expiry: readonly ExpiryCutoff[]): Promise<Forgotten> {
    const [row] = await this.sql.read(FORGET_ALL, { scope, kind: kind ?? null, expiry });
    return { memories: row?.memories ?? 0, journalLines: row?.journal_lines ?? 0 };
  }

  async counts(scope: Scope, expiry: readonly ExpiryCutoff[]): Promise<MemoryCounts> {
    const rows = await this.sql.read(COUNTS, { scope, expiry });
    const perKind: Record<string, number> = {};
    const pinnedPerKind: Record<string, number> = {};
    for (const row of rows) {
      perKind[row.kind] = row.total;
      pinnedPerKind[row.kind] = row.pinned;
    }
    return { perKind, pinned: rows.reduce((sum, r) => sum + r.pinned, 0), pinnedPerKind };
  }

  async journal(scope: Scope, pageSize: number, cursor: string | undefined): Promise<JournalPage> {
    const after = decodeCursor(cursor, 'journal');
    const rows = await this.sql.read(JOURNAL_PAGE, {
      scope,
      rows: pageSize + 1,
      afterAt: after ? new Date(after.value) : null,
      afterId: after?.id ?? null,
    });
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      lines: page.map((r) => ({
        at: new Date(r.at),
        kind: r.kind,
        rule: r.rule as 'ceiling' | 'expiry' | 'duplicate',
        ageSeconds: Number(r.age_s),
        recallCount: r.recall_count,
      })),
      nextCursor: rows.length > pageSize && last ? encodeCursor('journal', new Date(last.at), last.line_id) : undefined,
    };
  }
}
