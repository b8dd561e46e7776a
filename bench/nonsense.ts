import { LexicalAnalyzer } from '../lambda/memory/lexical.js';

const CONSONANTS = 'bcdfghjklmnprstvwz';
const VOWELS = 'aeiou';

/**
 * Queries made of invented, pronounceable words (`vorpel tisamu grelk?`), none of whose terms
 * occurs in `memories`: what a recall for something never stored looks like. They share
 * character trigrams with real words, so the offline embedder still finds near neighbours for
 * them; the relevance floor must turn those away. Deterministic: the same seed, the same queries.
 */
export function nonsenseQueries(memories: readonly string[], count: number, seed = 20): string[] {
  const analyzer = new LexicalAnalyzer('neutral');
  const known = new Set(memories.flatMap((m) => analyzer.terms(m)));
  let state = seed >>> 0;
  const next = (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) % n;
  };
  const word = () =>
    Array.from({ length: 2 + next(3) }, () => `${CONSONANTS[next(CONSONANTS.length)]}${VOWELS[next(VOWELS.length)]}`).join('') +
    (next(2) ? (CONSONANTS[next(CONSONANTS.length)] ?? '') : '');
  const out: string[] = [];
  while (out.length < count) {
    const query = `${Array.from({ length: 2 + next(3) }, word).join(' ')}?`;
    if (analyzer.queryTerms(query).every((t) => !known.has(t))) out.push(query);
  }
  return out;
}
