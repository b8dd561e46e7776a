/**
 * Function words that carry no topic: articles, pronouns, auxiliaries, prepositions and
 * conjunctions, in canonical form (lower case, no accents, apostrophes split off), as
 * `canonicalText` leaves them. Negations (no, not, nor, never, "didn't", ne, pas) are not among
 * them: "the gate is locked" and "the gate is not locked" must not become the same text.
 * English for the `english` text language; English and French together for the offline
 * embedder, which has no corpus statistics to down-weight them.
 */
const ENGLISH = `a about above after again against all am an and any are as at be been before being below between
both but by can could d did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just ll m me might more most must my myself
now o of off on once only or other our ours ourselves out over own re s same shall she should so some
such t than that the their theirs them themselves then there these they this those through to too under until up
us ve very was we were what when where which while who whom whose why will with would y you your yours yourself
yourselves ain also may yes`;

const FRENCH = `a ai aie aient aies ait as au aura aurai auraient aurais aurait auras aurez auriez aurions aurons
auront aux avaient avais avait avec avez aviez avions avons ayant ayez ayons c ce ceci cela celle celles celui ces
cet cette ceux d dans de des du elle elles en es est et etaient etais etait etant ete etes etiez etions eu eue
eues eurent eus eusse eut eux fut furent fus j l la le les leur leurs lui m ma mais me meme mes moi mon n nos
notre nous on ont ou par pour qu que quel quelle quelles quels qui s sa sans se sera serai seraient serais
serait seras serez seriez serions serons seront ses si son sont sur t ta te tes toi ton tu un une vos votre vous y`;

const words = (list: string) => list.split(/\s+/).filter(Boolean);

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(words(ENGLISH));
export const MULTILINGUAL_STOP_WORDS: ReadonlySet<string> = new Set([...words(ENGLISH), ...words(FRENCH)]);
