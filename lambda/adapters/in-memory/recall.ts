import type { Memory } from '../../memory/model.js';
import { holds } from '../../memory/policy/condition.js';
import { isLive } from '../../memory/policy/expiry.js';
import { SUPERSEDED } from '../../memory/policy/supersession.js';
import { isRelated } from '../../memory/policy/floor.js';
import { MAX_PASSAGE, PASSAGE_TERMS } from '../../memory/lexical.js';
import { grained, lengthScaled } from '../../memory/policy/ranking.js';
import { keptPlaces, NO_SUBJECT } from '../../memory/policy/recency.js';
import type { RankedMemory, RecallQuery } from '../../ports/curation-store.js';
import { byId, cosineDistance, type MemoryState, type StoredMemory, storedVector } from './state.js';

/**
 * Recall's ranking over the reference store's memories, step for step as the recall statement
 * ranks (statements/recall/recall.ts): the vector arm (exact: no cells), the lexical arm (BM25 with
 * the length-scaled k1 and b, rarity from the caller's partitions, at most `postingsPerTerm`
 * postings per term and partition), reciprocal rank fusion, the relevance floor, then what follows
 * each hit in its origin. Returns the hits and their scores, best first.
 */
export function rank(
  state: MemoryState,
  query: RecallQuery,
): { memory: StoredMemory; score: number; words: number; sameSubject: string[] }[] {
  const kinds = query.kinds.map((k) => k.kind);
  const rows = state.partition(query.scope, kinds);
  const cutoffOf = new Map(query.kinds.map((k) => [k.kind, k.expiredBefore]));
  // Superseded memories take no place unless asked for; then they rank after every current one.
  const live = (m: StoredMemory) =>
    isLive(m, cutoffOf.get(m.kind) ?? null) && (query.includeSuperseded === true || !holds(SUPERSEDED, m, NO_INPUTS));
  const vector = storedVector(query.embedding);
  const f = query.fusion;

  const distances = new Map(rows.map((m) => [m.id, cosineDistance(vector, m.embedding)]));
  const distance = (m: StoredMemory) => distances.get(m.id) ?? 2;
  const nearest = [...rows].sort((a, b) => distance(a) - distance(b) || byId(a, b)).slice(0, query.candidates);
  const vectorArm = nearest.filter(live).slice(0, f.depth);

  const parts = new Map<string, { score: number; related: boolean }>();
  const add = (id: string, part: number, related: boolean) => {
    const was = parts.get(id) ?? { score: 0, related: false };
    parts.set(id, { score: was.score + part, related: was.related || related });
  };
  // With terms, the vector arm's weight follows the partitions' average length, as lex_stats scales it.
  const average = Math.max(rows.reduce((sum, m) => sum + m.length, 0) / Math.max(rows.length, 1), 1);
  const scaled = query.terms.length > 0 ? lengthScaled(query.lexical, average) : { vectorScale: 1, followingScale: 1 };
  const vectorWeight = f.vectorWeight * scaled.vectorScale;
  vectorArm.forEach((m, i) => {
    add(m.id, vectorWeight / (f.k + i + 1), isRelated({ foundByWords: false, distance: distance(m) }, query.farthest));
  });
  const lexical = query.terms.length > 0 ? lexicalScores(rows, query) : [];
  lexical
    .slice(0, query.candidates)
    .map(([m]) => m)
    .filter(live)
    .slice(0, f.depth)
    .forEach((m, i) => {
      add(m.id, f.lexicalWeight / (f.k + i + 1), true);
    });
  const words = new Map(lexical.map(([m, score]) => [m.id, score]));
  const byScore = (a: { id: string; score: number }, b: { id: string; score: number }) => b.score - a.score || byId(a, b);
  const ranked = [...parts.entries()]
    .filter(([, p]) => p.score > 0 && p.related)
    .map(([id, p]) => ({ id, score: p.score }))
    .sort(byScore)
    .slice(0, query.limit);

  const best = new Map(ranked.map((r) => [r.id, r.score]));
  for (const hit of ranked) {
    const m = state.memories.get(hit.id);
    if (!m || m.origin === null || m.originSeq === null) continue;
    const seq = m.originSeq;
    const followers = rows
      .filter(
        (o) =>
          o.origin === m.origin &&
          o.kind === m.kind &&
          o.originSeq !== null &&
          o.originSeq > seq &&
          o.originSeq <= seq + (f.following > 0 ? f.followingReach : 0) &&
          live(o),
      )
      .sort((a, b) => (a.originSeq ?? 0) - (b.originSeq ?? 0) || byId(a, b))
      .slice(0, f.following);
    for (const o of followers)
      best.set(o.id, Math.max(best.get(o.id) ?? 0, hit.score * f.followingShare * scaled.followingScale));
  }
  // The first direct hits keep their place: what follows a hit takes at most its share of the places (policy/recency.ts).
  const kept = new Set(ranked.slice(0, keptPlaces(f, query.limit)).map((r) => r.id));
  const scored = [...best.entries()].map(([id, score]) => ({ id, score })).filter((h) => h.score > 0);
  const hits = [...scored.filter((h) => kept.has(h.id)), ...scored.filter((h) => !kept.has(h.id)).sort(byScore)]
    .slice(0, query.limit)
    .sort(byScore);
  const found = hits.flatMap((h) => {
    const memory = state.memories.get(h.id);
    return memory ? [{ memory, score: h.score, words: words.get(h.id) ?? 0 }] : [];
  });
  const within = query.sameSubject ?? NO_SUBJECT;
  return (
    found
      .map((f) => ({
        ...f,
        // The other memories found of its kind within the same-subject distance, as the statement lists them.
        sameSubject: found
          .filter((o) => o.memory.kind === f.memory.kind && o.memory.id !== f.memory.id)
          .filter((o) => cosineDistance(o.memory.embedding, f.memory.embedding) <= within)
          .map((o) => o.memory.id)
          .sort(),
      }))
      // Superseded memories, when asked for, after every current one; then best first, newest first, by id.
      .sort(
        (a, b) =>
          Number(isSuperseded(state, a.memory.id)) - Number(isSuperseded(state, b.memory.id)) ||
          b.score - a.score ||
          b.memory.createdAt.getTime() - a.memory.createdAt.getTime() ||
          byId(a.memory, b.memory),
      )
  );
}

/** Every memory the lexical arm scores, with its score, best first: BM25 over the caller's partitions of the query's kinds. */
function lexicalScores(rows: readonly StoredMemory[], query: RecallQuery): (readonly [StoredMemory, number])[] {
  const l = query.lexical;
  const n = rows.length;
  const average = Math.max(rows.reduce((sum, m) => sum + m.length, 0) / Math.max(n, 1), 1);
  const { k1, b } = lengthScaled(l, average);
  // Per memory, each passage's score (decision 0115): a posting counts in every passage its mask names.
  const scores = new Map<string, number[]>();
  for (const term of new Set(query.terms)) {
    const holding = rows.filter((m) => m.terms.has(term));
    const df = holding.length;
    if (df === 0 || df > Math.max(l.commonDf, l.commonShare * n)) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const kind of new Set(holding.map((m) => m.kind))) {
      const postings = holding
        .filter((m) => m.kind === kind)
        .sort((x, y) => (y.terms.get(term) ?? 0) - (x.terms.get(term) ?? 0) || x.length - y.length || byId(x, y))
        .slice(0, l.postingsPerTerm);
      for (const m of postings) {
        const tf = m.terms.get(term) ?? 0;
        const part = (idf * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * m.length) / average));
        const passages = scores.get(m.id) ?? [];
        const mask = m.passages.get(term) ?? 1;
        const last = Math.min(Math.floor((m.length - 1) / PASSAGE_TERMS), MAX_PASSAGE);
        for (let i = 0; i <= last; i += 1) {
          if (Math.floor(mask / 2 ** i) % 2 === 1) passages[i] = (passages[i] ?? 0) + part;
        }
        scores.set(m.id, passages);
      }
    }
  }
  const byMemory = new Map(rows.map((m) => [m.id, m]));
  return [...scores.entries()]
    .flatMap(([id, passages]) => {
      const best = Math.max(...passages.filter((s) => s !== undefined));
      return Number.isFinite(best) ? [[id, best] as const] : [];
    })
    .sort(([a, x], [c, y]) => grained(y) - grained(x) || (a < c ? -1 : a > c ? 1 : 0))
    .flatMap(([id, score]) => {
      const m = byMemory.get(id);
      return m ? [[m, score] as const] : [];
    });
}

const NO_INPUTS = { cutoff: null, spared: null };

const isSuperseded = (state: MemoryState, id: string): boolean => {
  const m = state.memories.get(id);
  return m !== undefined && holds(SUPERSEDED, m, NO_INPUTS);
};

/** A stored memory as the domain holds it. */
export function toMemory(state: MemoryState, m: StoredMemory): Memory {
  return {
    id: m.id,
    kind: m.kind,
    content: m.content,
    pinned: m.pinned,
    createdAt: m.createdAt,
    lastUsefulAt: m.lastUsefulAt,
    recallCount: m.recallCount,
    restatements: m.restatements,
    source: { agent: m.agent, client: m.client, origin: m.origin, at: m.createdAt },
    restatedBy: m.restatedBy.map((s) => ({ ...s })),
    conflicts: state.linksOf(m.id),
    supersededBy: m.supersededBy ?? null,
    supersededAt: m.supersededBy ? (m.supersededAt ?? null) : null,
    supersedes: state.supersededBy(m.id),
  };
}

/** A ranked memory as recall answers it, with its distance from the query and what the newer-first rule reads of it. */
export const toRanked = (
  state: MemoryState,
  ranked: { memory: StoredMemory; score: number; words: number; sameSubject: string[] },
  query: RecallQuery,
): RankedMemory => ({
  ...toMemory(state, ranked.memory),
  distance: cosineDistance(storedVector(query.embedding), ranked.memory.embedding),
  score: ranked.score,
  length: ranked.memory.length,
  words: ranked.words,
  sameSubject: ranked.sameSubject,
});
