/**
 * `npm run bench:longmem -- --passages yes`: the lexical arm replayed in memory over the same
 * memories (no database), to weigh ways of scoring a long memory by its passages before building
 * one (decision 0115). Each variant ranks every memory of a question's haystack by BM25 with the
 * length-scaled k1 and b of the arm in force (ranking.ts, lengthScaled), rarity over whole
 * memories and very common terms left out as the arm leaves them, then scores it against the
 * evidence as the bench does. The arm's other limits (postings read per term, the candidates) do
 * not act on haystacks of this size.
 */
import { canonicalText } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer, PASSAGE_TERMS } from '../lambda/memory/lexical.js';
import { LEXICAL, lengthScaled } from '../lambda/memory/policy/ranking.js';
import type { LongQuestion } from './longmem-data.js';

/** How a variant cuts and scores: passages of `size` terms (0: the memory whole). */
export interface PassageVariant {
  readonly name: string;
  readonly size: number;
  /** A term's frequency in a passage: its count there, or the memory's count wherever it occurs (what a mask can keep). */
  readonly frequency: 'passage' | 'memory';
  /** The length a passage is normalised by: its own, or its memory's. */
  readonly length: 'passage' | 'memory';
  /** A memory's score: its best passage's, or the sum over its passages. */
  readonly combine: 'best' | 'sum';
}

export const PASSAGE_VARIANTS: readonly PassageVariant[] = [
  { name: 'whole memories (before decision 0115)', size: 0, frequency: 'memory', length: 'memory', combine: 'best' },
  ...[50, 100, 150, 200].map((size) => ({
    name: `passages of ${size}, counts and length of the passage`,
    size,
    frequency: 'passage' as const,
    length: 'passage' as const,
    combine: 'best' as const,
  })),
  ...[50, 100, 150, 200].map((size) => ({
    name: `passages of ${size}, counts of the passage, length of the memory`,
    size,
    frequency: 'passage' as const,
    length: 'memory' as const,
    combine: 'best' as const,
  })),
  ...[75, 100, 150, 200].map((size) => ({
    name: `passages of ${size}, counts and length of the memory (a mask per posting)${size === PASSAGE_TERMS ? ': in force' : ''}`,
    size,
    frequency: 'memory' as const,
    length: 'memory' as const,
    combine: 'best' as const,
  })),
  { name: 'passages of 100, counts of the passage, summed', size: 100, frequency: 'passage', length: 'memory', combine: 'sum' },
];

const analyzer = new LexicalAnalyzer();

/** A text's terms in order, every occurrence, as LexicalAnalyzer.frequencies counts them. */
function termsInOrder(text: string): string[] {
  const out: string[] = [];
  for (const token of canonicalText(text).split(/[^\p{L}\p{N}]+/u)) {
    if (token !== '') out.push(...analyzer.terms(token));
  }
  return out;
}

const counts = (terms: readonly string[]) => {
  const out = new Map<string, number>();
  for (const t of terms) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
};

/** The question's memories ranked under one variant, best first (ids of the pieces). */
export function rankByPassages(question: LongQuestion, variant: PassageVariant): string[] {
  const memories = question.sessions.flatMap((s) => s.pieces.map((p) => ({ id: p.id, terms: termsInOrder(p.content) })));
  const n = memories.length;
  const df = new Map<string, number>();
  for (const m of memories) for (const t of new Set(m.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const average = Math.max(memories.reduce((s, m) => s + m.terms.length, 0) / Math.max(n, 1), 1);
  const passageAverage = (() => {
    if (variant.size === 0 || variant.length === 'memory') return average;
    const lengths = memories.flatMap((m) =>
      Array.from({ length: Math.max(Math.ceil(m.terms.length / variant.size), 1) }, (_, i) =>
        Math.min(variant.size, m.terms.length - i * variant.size),
      ),
    );
    return Math.max(lengths.reduce((s, l) => s + l, 0) / Math.max(lengths.length, 1), 1);
  })();
  const { k1, b } = lengthScaled(LEXICAL, passageAverage);
  const query = analyzer
    .queryTerms(question.text)
    .filter((t) => (df.get(t) ?? 0) > 0 && (df.get(t) ?? 0) <= Math.max(LEXICAL.commonDf, LEXICAL.commonShare * n));
  const scored = memories.flatMap((m) => {
    const whole = counts(m.terms);
    const size = variant.size > 0 ? variant.size : Math.max(m.terms.length, 1);
    const passages: number[] = [];
    for (let at = 0; at < Math.max(m.terms.length, 1); at += size) {
      const part = m.terms.slice(at, at + size);
      const here = counts(part);
      const length = variant.length === 'memory' ? m.terms.length : part.length;
      let score = 0;
      for (const term of query) {
        if (!here.has(term)) continue;
        const tf = (variant.frequency === 'memory' ? whole.get(term) : here.get(term)) ?? 0;
        const d = df.get(term) ?? 0;
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
        score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / passageAverage));
      }
      passages.push(score);
    }
    const score = variant.combine === 'best' ? Math.max(...passages) : passages.reduce((s, x) => s + x, 0);
    return score > 0 ? [{ id: m.id, score }] : [];
  });
  return scored.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1)).map((s) => s.id);
}
