/**
 * The lexical arm's terms as PostgreSQL/CockroachDB text-search literals. Both engines get the
 * terms the application made (never their own parsers, which split words differently), so
 * stored lexemes and query lexemes match on either engine. A term is a run of letters and digits
 * (LexicalAnalyzer), so quoting it needs no escaping; anything else is refused, never spliced.
 */
const TERM = /^[\p{L}\p{N}]+$/u;

function quoted(term: string): string {
  if (!TERM.test(term)) throw new Error('a lexical term must be letters and digits only');
  return `'${term}'`;
}

/** `'a' 'b'`: a tsvector without positions (an empty one for no terms). */
export const toTsvectorLiteral = (terms: readonly string[]): string => terms.map(quoted).join(' ');

/** `'a' | 'b'`: matches a memory holding any of the terms. Never called with none (CockroachDB refuses an empty tsquery). */
export function toAnyTermQuery(terms: readonly string[]): string {
  if (terms.length === 0) throw new Error('an empty text-search query');
  return terms.map(quoted).join(' | ');
}

/** Each term as its own one-term tsquery, for counting and scoring matches term by term. */
export const toTermQueries = (terms: readonly string[]): string[] => terms.map(quoted);
