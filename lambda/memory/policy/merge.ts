import type { JudgeOutcome } from '../model.js';

/**
 * The merge rule (DESIGN §4): a new memory merges into an existing one of the same user and kind
 * only when it is an exact restatement (equal after canonicalisation, no model asked) or when the
 * judge says the two make the same claim. A judge that says they contradict makes the new one
 * supersede the existing one (policy/supersession.ts): both are kept and linked, and recall
 * returns the newer; any other answer, an unavailable judge included, stores the new memory as it
 * is: an extra memory is recoverable, an overwritten one is not.
 */

/** How the duplicate check went: the judge's answer, an exact restatement, or no neighbour to ask about. */
export type DedupVerdict = JudgeOutcome | 'exact' | 'not_asked';

/** What the duplicate check decided: merge into `target`, store superseding `supersedes`, or store. */
export interface MergeDecision {
  readonly verdict: DedupVerdict;
  readonly target?: string;
  readonly supersedes?: string;
}

/** The decision for the judge's answer about the nearest live memory. */
export function judged(verdict: JudgeOutcome, nearest: string): MergeDecision {
  if (verdict === 'same') return { verdict, target: nearest };
  return verdict === 'contradicts' ? { verdict, supersedes: nearest } : { verdict };
}

/** An exact restatement of a live memory merges into it without a judge. */
export const exactRestatement = (target: string): MergeDecision => ({ verdict: 'exact', target });

/** Nothing to compare with (an empty kind, or a kind without deduplication): store. */
export const notAsked: MergeDecision = { verdict: 'not_asked' };
