import { canonicalText } from '../canonical.js';
import type { LexicalAnalyzer } from '../lexical.js';
import { type Formula, VALUES } from './formula.js';
import type { Fusion } from './ranking.js';

/**
 * Two rules on the last step of recall (decision 0113), over what it has already chosen.
 *
 * **The newer on a subject ranks first.** Without a model judge an update is stored as one more
 * memory ("the meeting moved to Thursday" beside "the meeting is on Tuesday"), and both come back.
 * Two memories found of the same kind lie on the same subject when both are statements (at most
 * `FUSION.statementTerms` terms: a long memory holds many subjects, and the offline embedder puts
 * long texts near each other) and their vectors are near each other (`sameSubjectWithin`). Each memory found then scores the best score of itself and of every memory
 * found on its subject written before it, and equal scores go newest first: a newer memory takes at least its older neighbour's place, the older comes right after it, and
 * nothing else moves. It reorders what recall returns and never changes which memories those are;
 * nothing is deleted or marked.
 *
 * **Recency orders only what the query cannot tell apart** (decision 0124). A newer memory takes an
 * older one's place only when it keeps the names and numbers of the query that the older holds,
 * and its words answer the query at least `FUSION.newerWords` as well as the older's (lexical
 * scores: for statements, the summed rarity of the query's terms each holds) or it says it changes
 * something (`statesChange`). "Omar's locker code is 2718." never takes the place of "Nora's
 * locker code is 3141." for "What is Nora's locker code?": "Nora" is in the query and the older,
 * not the newer. "Kenji's leave now begins on 15 January." does take the place of "Kenji starts his
 * parental leave on 1 February." for "When does Kenji's parental leave start?": it keeps "Kenji"
 * and says "now". A query word that most of the other memories found hold as well ("at", "to": the
 * question's grammar) tells nothing apart, and the newer may lack it (decision 0135). With the words deciding, the same-subject distance reaches `SUBJECT_REACH` times
 * the embedder's relevance distance. Without query terms (the vector arm alone) both words scores
 * are 0, and the newer takes the place as before.
 *
 * **What follows a hit takes at most a share of the places.** The memories that follow a hit in
 * its origin (decision 0081) come at a share of its score and used to take any place they beat.
 * Now the first `limit` − ⌊`FUSION.followerPlaces` × `limit`⌋ memories the arms ranked (direct
 * hits) always keep their place, and the remaining places go to the best of the rest, followers
 * and other direct hits alike: what follows a hit takes at most that share of the places when the
 * arms found enough, any empty place otherwise, and never pushes one of the first direct hits out.
 */

/** Cosine distances are never negative: within this one no two memories are on the same subject, and recency orders nothing. */
export const NO_SUBJECT = -1;

/**
 * How far past the embedder's relevance distance two found memories still lie on one subject: an
 * update worded anew ("Kenji's leave now begins on 15 January.") lies farther from what it updates
 * than a look-alike does, and what tells the two apart is the query's words (`answersAsWell`), not
 * the distance (decision 0124: 1 gave 49 of 72 updates within reach on the dev set, 1.6 gave 68).
 */
export const SUBJECT_REACH = 1.6;

/** The distance within which two found memories are on the same subject; an embedder without a calibrated distance has none. */
export const sameSubjectWithin = (unrelatedBeyond: number | undefined): number =>
  unrelatedBeyond === undefined ? NO_SUBJECT : SUBJECT_REACH * unrelatedBeyond;

/** How many of a recall's places are kept for its first direct hits: the rest may go to what follows a hit. */
export const keptPlacesIn = <N, B>(f: Formula<N, B>, followerShare: N, limit: N): N =>
  f.minus(limit, f.floor(f.times(followerShare, limit)));

/** {@link keptPlacesIn} over values. */
export const keptPlaces = (fusion: Pick<Fusion, 'followerPlaces'>, limit: number): number =>
  keptPlacesIn(VALUES, fusion.followerPlaces, limit);

/** A memory found, as the newer-first rule reads it (the store's `RankedMemory`). */
export interface Found {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly createdAt: Date;
  readonly score: number;
  /** Its length in terms. */
  readonly length: number;
  /** Its lexical arm's score for the query (0 when the lexical arm did not score it). */
  readonly words: number;
  /** The other memories found of its kind within the same-subject distance. */
  readonly sameSubject: readonly string[];
  /** The memory that replaced it, while that exists: superseded memories come after every current one. */
  readonly supersededBy: string | null;
}

/** What the rule reads of the query and how it reads text: the query's words, and the analyzer that made its terms. */
export interface QueryWords {
  readonly text: string;
  readonly analyzer: LexicalAnalyzer;
}

/**
 * Words that say a statement changes something it does not repeat ("now", "moved", "no longer",
 * "désormais", "ne … plus", "got tired of", "s'est lassée de"), in canonical form (policy/recency.ts, decision 0124): an update often
 * drops the words of the question it answers ("Kenji's leave now begins on 15 January."), a
 * look-alike says nothing of a change ("Omar's locker code is 2718.").
 */
const CHANGE_WORDS =
  /\b(NOW|NEW|NO LONGER|ANY ?MORE|NO MORE|INSTEAD|FROM NOW ON|THESE DAYS|NOWADAYS|SINCE|CHANGED?|MOVED?|SWITCHED|UPDATED?|REPLACED|BECAME|RAISED|LOWERED|INCREASED|DECREASED|CUT|RESCHEDULED|POSTPONED|PUSHED|SLIPPED|STOPPED|QUIT|GAVE UP|GIVEN UP|TIRED OF|TURNED|REBOOKED|MIGRATED|PASSED|EXTENDED|JOINED|MAINTENANT|DESORMAIS|DORENAVANT|NOUVEAU|NOUVELLE|NOUVEL|CHANGE|DEMENAGE|PLUS|PASSE|PASSEE|DECALE|DECALEE|REPORTE|REPORTEE|AVANCE|AVANCEE|AUGMENTE|AUGMENTEE|REMPLACE|REMPLACEE|FINALEMENT|A PARTIR DE?|MIGREE?|REPASSEE?|DEPLACEE?S?|PROLONGEE?|REJOINT|ARRETEE?|LASSEE?|DEPUIS|CES TEMPS CI|ACTUELLEMENT)\b/iu;

/** Whether a statement says it changes something. */
export const statesChange = (content: string): boolean => CHANGE_WORDS.test(canonicalText(content));

/**
 * The terms of a text's names and numbers: words written with a capital letter after a sentence's
 * first word (or with a capital inside: "iOS"), and words holding a digit. They name the subject ("Nora", "room 204"), which an update
 * keeps and a look-alike replaces.
 */
export function namedTerms(text: string, analyzer: LexicalAnalyzer): Set<string> {
  const named = new Set<string>();
  let first = true;
  for (const raw of text.split(/\s+/u)) {
    const word = raw.replace(/^[^\p{L}\p{N}]+/u, '');
    // "d'Adèle", "Nora's": each part on its own, so the elision or the possessive is never the name.
    for (const [i, part] of word.split(/['’]/u).entries()) {
      if (/\p{N}/u.test(part) || ((!first || i > 0) && /\p{Lu}/u.test(part))) {
        for (const term of analyzer.terms(part)) named.add(term);
      }
    }
    if (word !== '' || /[.!?:;]$/u.test(raw)) first = /[.!?:;]$/u.test(raw);
  }
  return named;
}

/**
 * The terms of the answers a question offers: the words on either side of a standalone "or" or
 * "ou" ("Faut-il tutoyer ou vouvoyer le client ?", "tea or coffee?"). They are what the question
 * asks to choose between, not its subject: a newer memory that lacks the one the older holds may be
 * the update that chose the other. "où" (where) is another word.
 */
export function offeredTerms(text: string, analyzer: LexicalAnalyzer): Set<string> {
  const words = text.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  const offered = new Set<string>();
  for (const [i, word] of words.entries()) {
    const before = words[i - 1];
    const after = words[i + 1];
    if (!/^(or|ou)$/iu.test(word) || before === undefined || after === undefined) continue;
    for (const term of [...analyzer.terms(before), ...analyzer.terms(after)]) offered.add(term);
  }
  return offered;
}

/** The terms of each memory found and of the query, made once per recall: what `answersAsWell` compares. */
export class FoundTerms {
  readonly query: Set<string>;
  /** The query's offered answers ({@link offeredTerms}). */
  readonly offered: Set<string>;
  private readonly held = new Map<string, Set<string>>();

  constructor(
    private readonly words: QueryWords,
    private readonly found: readonly Found[],
  ) {
    this.query = new Set(words.analyzer.terms(words.text));
    this.offered = offeredTerms(words.text, words.analyzer);
  }

  /** A memory's terms. */
  of(memory: Found): Set<string> {
    let terms = this.held.get(memory.id);
    if (!terms) {
      terms = new Set(this.words.analyzer.terms(memory.content));
      this.held.set(memory.id, terms);
    }
    return terms;
  }

  /** Whether a memory holds a query term, or the same word in another form (the analyzer's prefix term: "deploy", "deploys"). */
  holds(memory: Found, term: string): boolean {
    const terms = this.of(memory);
    return this.words.analyzer.terms(term).some((t) => terms.has(t));
  }

  /**
   * Whether a query term tells two memories apart: it does not when most of the other current
   * memories found hold it too ("at", "to": the question's grammar, not its subject).
   */
  tellsApart(term: string, newer: Found, older: Found): boolean {
    const others = this.found.filter((f) => f.id !== newer.id && f.id !== older.id && f.supersededBy === null);
    return 2 * others.filter((o) => this.of(o).has(term)).length <= others.length;
  }
}

/**
 * Whether a newer memory found on an older one's subject answers the query at least as well on what
 * tells them apart, so that it may take the older's place: it holds every name or number of the
 * query that the older holds; and its words answer the query at least `words` as well as the
 * older's, or every query word the older holds and it lacks is one that most memories found hold
 * too (decision 0135) or one of the answers the question offers (`offeredTerms`), or it says it
 * changes something.
 */
export function answersAsWell(newer: Found, older: Found, query: QueryWords, words: number, terms: FoundTerms): boolean {
  const { analyzer } = query;
  const newerTerms = terms.of(newer);
  const olderTerms = terms.of(older);
  const named = new Set([...namedTerms(query.text, analyzer), ...namedTerms(older.content, analyzer)]);
  const namesKept = [...terms.query].every((t) => !named.has(t) || !olderTerms.has(t) || newerTerms.has(t));
  if (!namesKept) return false;
  const lost = [...terms.query].filter((t) => olderTerms.has(t) && !terms.holds(newer, t));
  return (
    newer.words >= words * older.words ||
    lost.every((t) => terms.offered.has(t) || !terms.tellsApart(t, newer, older)) ||
    statesChange(newer.content)
  );
}

/**
 * The found memories in the order recall answers them: each scores the best of its own score and
 * those of the older statements on its subject whose place it may take, best first (equal scores
 * newest first, then by id), superseded memories after every current one.
 */
export function newestFirst<T extends Found>(
  found: readonly T[],
  query: QueryWords,
  within: Pick<Fusion, 'statementTerms' | 'newerReach' | 'newerWords'>,
): T[] {
  const byId = new Map(found.map((f) => [f.id, f]));
  const terms = new FoundTerms(query, found);
  const takes = (t: T, o: T) =>
    o.kind === t.kind &&
    o.createdAt.getTime() < t.createdAt.getTime() &&
    Math.max(o.length, t.length) <= within.statementTerms &&
    t.score >= within.newerReach * o.score &&
    answersAsWell(t, o, query, within.newerWords, terms);
  const scored = found.map((t) => {
    const reached = t.sameSubject.flatMap((id) => {
      const o = byId.get(id);
      return o && takes(t, o) ? [o.score] : [];
    });
    return { found: { ...t, score: Math.max(t.score, ...reached) }, score: Math.max(t.score, ...reached) };
  });
  return scored
    .sort(
      (a, b) =>
        Number(a.found.supersededBy !== null) - Number(b.found.supersededBy !== null) ||
        b.score - a.score ||
        b.found.createdAt.getTime() - a.found.createdAt.getTime() ||
        (a.found.id < b.found.id ? -1 : a.found.id > b.found.id ? 1 : 0),
    )
    .map((s) => s.found);
}
