import { stemmer } from 'stemmer';
import { canonicalText } from './canonical.js';
import { ENGLISH_STOP_WORDS } from './stop-words.js';

/**
 * Text languages of the lexical arm. `neutral` (the default) normalises as `canonicalText` does
 * and adds each longer word's first five characters as a second term, a crude stem that works
 * alike in most alphabetic languages (`marché`, `marchés`, `marchand` meet at `march`); term
 * rarity alone tells common words from rare ones. `english` drops English function words and
 * reduces words to their Porter stem instead. Measured on LoCoMo dev: docs/decisions/0039.
 */
export const TEXT_LANGUAGES = ['neutral', 'english'] as const;
export type TextLanguage = (typeof TEXT_LANGUAGES)[number];

/** Longer tokens (hashes, base64 blobs) are cut: the cut keeps them findable by their start. */
const MAX_TERM_CHARS = 48;
/** The neutral language's prefix term: words longer than this also yield their first PREFIX_CHARS characters. */
const PREFIX_CHARS = 5;
/**
 * The lexical arm's passages (decision 0115): a memory's terms, in order, cut every PASSAGE_TERMS
 * terms. Each posting keeps a mask of the passages its term occurs in (bit i for passage i, the
 * passages past MAX_PASSAGE in the last bit), and recall scores a memory by its best passage.
 */
export const PASSAGE_TERMS = 150;
export const MAX_PASSAGE = 30;

/** A query's distinct terms beyond this are ignored: each one costs the search an index lookup. */
export const MAX_QUERY_TERMS = 32;

/**
 * Turns text into the terms the lexical arm stores and searches: canonical text split into runs
 * of letters and digits (so a term never holds a quote, a space or an operator), then the
 * language's stop words and stemming. The same function makes both sides, memories and queries.
 */
export class LexicalAnalyzer {
  /** Recorded with the schema: stored terms made by another analyzer must be rewritten (`naaba reembed`). */
  readonly name: string;

  constructor(readonly language: TextLanguage = 'neutral') {
    // v2: terms are stored with their frequencies, as postings per partition (decision 0056).
    this.name = `naaba-terms-v2/${language}`;
  }

  /** Distinct terms of a memory, in order of first appearance. */
  terms(text: string): string[] {
    return [...this.frequencies(text).keys()];
  }

  /**
   * How often each term occurs in a memory, terms in order of first appearance: what its postings
   * store, and their sum is the memory's length for length normalisation.
   */
  frequencies(text: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const token of canonicalText(text).split(/[^\p{L}\p{N}]+/u)) {
      if (token === '') continue;
      for (const term of this.reduce(token.slice(0, MAX_TERM_CHARS))) out.set(term, (out.get(term) ?? 0) + 1);
    }
    return out;
  }

  /**
   * The passages each term of a memory occurs in, as a mask (bit i: passage i of PASSAGE_TERMS
   * terms, counted as `frequencies` counts them), terms in order of first appearance. A memory of
   * at most PASSAGE_TERMS terms is one passage: every mask is 1.
   */
  passages(text: string): Map<string, number> {
    const out = new Map<string, number>();
    let at = 0;
    for (const token of canonicalText(text).split(/[^\p{L}\p{N}]+/u)) {
      if (token === '') continue;
      for (const term of this.reduce(token.slice(0, MAX_TERM_CHARS))) {
        const bit = 2 ** Math.min(Math.floor(at / PASSAGE_TERMS), MAX_PASSAGE);
        const mask = out.get(term) ?? 0;
        out.set(term, Math.floor(mask / bit) % 2 === 1 ? mask : mask + bit);
        at += 1;
      }
    }
    return out;
  }

  /** Distinct terms of a query, at most MAX_QUERY_TERMS of them; none for a query of stop words or punctuation. */
  queryTerms(text: string): string[] {
    return this.terms(text).slice(0, MAX_QUERY_TERMS);
  }

  private reduce(token: string): string[] {
    if (this.language === 'english') return ENGLISH_STOP_WORDS.has(token) ? [] : [stemmer(token)];
    const letters = [...token];
    return letters.length > PREFIX_CHARS ? [token, letters.slice(0, PREFIX_CHARS).join('')] : [token];
  }
}
