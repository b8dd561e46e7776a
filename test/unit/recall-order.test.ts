import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { namesFirst } from '../../lambda/memory/policy/names-first.js';
import { FUSION } from '../../lambda/memory/policy/ranking.js';
import { type Found, newestFirst, offeredTerms } from '../../lambda/memory/policy/recency.js';

/**
 * The order recall answers in, over what the store found (decisions 0124, 0135): the one memory
 * holding the query's names comes first, and a newer memory may lack the query's words that most
 * memories found hold.
 */

const analyzer = new LexicalAnalyzer();

/** A found statement: its fused score, its lexical score, written `day` days in, on the subject of `same`. */
function found(id: string, content: string, score: number, words: number, day = 0, same: string[] = []): Found {
  return {
    id,
    kind: 'fact',
    content,
    createdAt: new Date(Date.UTC(2026, 0, 1 + day)),
    score,
    length: analyzer.terms(content).length,
    words,
    sameSubject: same,
    supersededBy: null,
  };
}

const ids = (memories: readonly Found[]) => memories.map((m) => m.id);

describe('namesFirst', () => {
  // A list of one pattern: the fusion put another entry above the one the query names.
  const list = [
    found('nicolas', 'La boisson préférée de Nicolas est le thé au jasmin.', 0.13, 2.4),
    found('patrice', "La boisson préférée de Patrice est l'expresso serré.", 0.12, 2.4),
    found('melanie', 'La boisson préférée de Mélanie est le café allongé.', 0.11, 9.1),
  ];

  test.each([
    [
      'the one memory holding the query’s name comes first',
      "Qu'est-ce que Mélanie aime boire ?",
      list,
      ['melanie', 'nicolas', 'patrice'],
    ],
    ['without a name in the query nothing moves', "Qu'est-ce que j'aime boire ?", list, ['nicolas', 'patrice', 'melanie']],
    ['a name no memory found holds moves nothing', "Qu'est-ce qu'Ulysse aime boire ?", list, ['nicolas', 'patrice', 'melanie']],
    [
      'a name two memories hold tells nothing apart',
      'What does Mélanie drink?',
      [...list, found('melanie-too', 'Mélanie drinks tea at noon.', 0.1, 9.1)],
      ['nicolas', 'patrice', 'melanie', 'melanie-too'],
    ],
    [
      'the holder that the words do not score best stays where it is',
      "Qu'est-ce que Mélanie aime boire ?",
      [...list, found('boire', 'Aimer boire, boire et aimer.', 0.1, 12)],
      ['nicolas', 'patrice', 'melanie', 'boire'],
    ],
  ] as const)('%s', (_case, query, memories, expected) => {
    expect(ids(namesFirst(memories, { text: query, analyzer }))).toEqual(expected);
  });

  test('a superseded holder stays after every current memory', () => {
    const old = { ...found('melanie', 'La boisson préférée de Mélanie est le café allongé.', 0.11, 9.1), supersededBy: 'x' };

    const order = namesFirst([...list.slice(0, 2), old], { text: "Qu'est-ce que Mélanie aime boire ?", analyzer });

    expect(ids(order)).toEqual(['nicolas', 'patrice', 'melanie']);
  });
});

describe('newestFirst: the words a newer memory may lack', () => {
  const query = { text: 'Which office does Aisha work at?', analyzer };
  const older = found('older', 'Aisha works at the Manchester office.', 0.136, 12.5, 0, ['newer']);
  const newer = found('newer', 'Aisha transferred to the Leeds office.', 0.125, 10.1, 1, ['older']);
  // Other memories found that hold "at", the question's grammar, or not.
  const holdingAt = ['The standup is at 9:30.', 'The dentist is at 9.', 'The club meets at the cafe.'];
  const others = (texts: readonly string[]) => texts.map((t, i) => found(`other-${i}`, t, 0.09 - i * 0.001, 2.4));

  test.each([
    ['most memories found hold the word it lacks: it takes the older’s place', holdingAt, ['newer', 'older']],
    [
      'few memories found hold it: the word tells them apart, and the older stays first',
      ['The standup is at 9:30.', 'The dentist is on Friday.', 'The club meets in the cafe.'],
      ['older', 'newer'],
    ],
  ] as const)('%s', (_case, texts, expected) => {
    const order = newestFirst([older, newer, ...others(texts)], query, FUSION);

    expect(ids(order).slice(0, 2)).toEqual(expected);
  });

  test('a look-alike lacking the query’s subject word never takes the place, however common its other words', () => {
    const q = { text: 'Which port is the production Redis cache on?', analyzer };
    const prod = found('prod', 'The production Redis cache runs on port 6380.', 0.136, 22.1, 0, ['staging']);
    const staging = found('staging', 'The staging Redis cache runs on port 6381.', 0.125, 15.2, 1, ['prod']);

    const order = newestFirst([prod, staging, ...others(['Product owners meet on port day.', 'Produce on port.'])], q, FUSION);

    expect(ids(order).slice(0, 2)).toEqual(['prod', 'staging']);
  });
});

describe('newestFirst: the answers a question offers', () => {
  test('the words on either side of a standalone "or" / "ou" are offered answers; "où" is not "ou"', () => {
    expect([...offeredTerms('Faut-il tutoyer ou vouvoyer le client ?', analyzer)]).toEqual(
      expect.arrayContaining(['tutoyer', 'vouvoyer']),
    );
    expect([...offeredTerms('Tea or coffee for Mia?', analyzer)]).toEqual(expect.arrayContaining(['tea', 'coffee']));
    expect(offeredTerms('Où habite Nora ?', analyzer).size).toBe(0);
    expect(offeredTerms('Or else what?', analyzer).size).toBe(0);
  });

  const question = { text: 'Faut-il tutoyer ou vouvoyer le client dans les courriels ?', analyzer };
  const older = found('older', 'Vouvoyer le client dans les courriels.', 0.136, 12.5, 0, ['newer']);

  test('a newer memory lacking the offered answer the older holds takes its place: it may be the update that chose the other', () => {
    const newer = found('newer', 'Le client demande qu’on le tutoie dans les courriels.', 0.125, 7.1, 1, ['older']);

    expect(ids(newestFirst([older, newer], question, FUSION))).toEqual(['newer', 'older']);
  });

  test('one lacking a word of the subject as well does not', () => {
    const q = { text: 'Faut-il tutoyer ou vouvoyer le client dans les courriels ?', analyzer };
    const other = found('other', 'Le fournisseur demande qu’on le tutoie au téléphone.', 0.125, 2.1, 1, ['older']);

    expect(ids(newestFirst([older, other], q, FUSION))).toEqual(['older', 'other']);
  });
});
