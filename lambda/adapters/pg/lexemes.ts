/**
 * The lexical arm's terms as the statements take them: a TEXT[] parameter, never spliced into SQL.
 * Both engines get the terms the application made (never their own parsers, which split words
 * differently), so stored postings and query terms match on either engine. A term is a run of
 * letters and digits (LexicalAnalyzer); anything else is refused before it reaches the database.
 */
const TERM = /^[\p{L}\p{N}]+$/u;

/** The terms as they are, once each is checked to be letters and digits only. */
export function checkedTerms(terms: readonly string[]): string[] {
  for (const term of terms) if (!TERM.test(term)) throw new Error('a lexical term must be letters and digits only');
  return [...terms];
}
