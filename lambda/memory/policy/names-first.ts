import { grained } from './ranking.js';
import { type Found, namedTerms, type QueryWords } from './recency.js';

/**
 * **The memory the query names comes first** (decision 0135). Reciprocal rank fusion reads ranks,
 * not why an arm ranked a memory where it did: in a list of one pattern ("La boisson préférée de
 * Mélanie est le café allongé.", then nine other people's), the lexical arm puts the one memory
 * holding the query's name first, and the other entries second and after on the pattern's words
 * alone; an encoder that reads the names poorly (the English sentence encoder on French) ranks
 * another entry first, and that entry's two good places outvote the named one's single clear first.
 * So among the memories found, the one that alone holds the query's names and numbers (its
 * `namedTerms`: "Mélanie", "PDF", "204"), and that the lexical arm scores best, comes first; the
 * others keep their order. It reorders what the arms found and never changes which memories those
 * are. A name that several found memories hold (a speaker's, a project's) tells nothing apart, and
 * nothing moves; nor does anything when no memory found holds one.
 */
export function namesFirst<T extends Found>(found: readonly T[], query: QueryWords): T[] {
  const { analyzer } = query;
  const named = [...namedTerms(query.text, analyzer)];
  if (named.length === 0) return [...found];
  const current = found.filter((f) => f.supersededBy === null);
  const holders = current.filter((f) => {
    const terms = new Set(analyzer.terms(f.content));
    return named.some((t) => terms.has(t));
  });
  const [only] = holders;
  if (holders.length !== 1 || only === undefined) return [...found];
  // Compared at the lexical arm's grain: the same sum in SQL and in the reference store differs in its last bits.
  if (current.some((f) => grained(f.words) > grained(only.words))) return [...found];
  return [only, ...found.filter((f) => f !== only)];
}
