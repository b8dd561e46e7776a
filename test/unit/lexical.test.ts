import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { checkedTerms } from '../../lambda/adapters/pg/lexemes.js';
import { LexicalAnalyzer, MAX_PASSAGE, MAX_QUERY_TERMS, PASSAGE_TERMS } from '../../lambda/memory/lexical.js';

describe('the lexical analyzer', () => {
  const neutral = new LexicalAnalyzer();
  const english = new LexicalAnalyzer('english');

  test.each<[string, string, string[]]>([
    ['case, accents and punctuation as canonicalText', 'Le Siège, à OUAGADOUGOU !', ['le', 'siege', 'a', 'ouagadougou', 'ouaga']],
    [
      'runs of letters and digits; each term once, in first order',
      "ZX-4471 zx_4471, l'été 2023",
      ['zx', '4471', 'l', 'ete', '2023'],
    ],
    ['scripts other than Latin', 'Встреча в Москве 東京', ['встреча', 'встре', 'в', 'москве', 'москв', '東京']],
    [
      'no stop words and no stemming, but a five-character prefix of longer words',
      'The runners were running; marché, marchés',
      ['the', 'runners', 'runne', 'were', 'running', 'runni', 'marche', 'march', 'marches'],
    ],
    ['nothing from punctuation and symbols', '?!… — 🙂', []],
  ])('neutral: %s', (_label, text, terms) => {
    expect(neutral.terms(text)).toEqual(terms);
  });

  test('english: stop words go and words are reduced to their stem', () => {
    expect(english.terms('The runners were running to the market')).toEqual(['runner', 'run', 'market']);
    expect(english.terms('what was it?')).toEqual([]);
  });

  test('names say language and version, so stored terms from another analyzer are detected', () => {
    expect(neutral.name).toBe('naaba-terms-v2/neutral');
    expect(english.name).toBe('naaba-terms-v2/english');
  });

  test('frequencies count every occurrence, prefix terms included; their sum is the length', () => {
    const counts = neutral.frequencies('Tea, tea and teapots: TEA!');
    expect([...counts]).toEqual([
      ['tea', 3],
      ['and', 1],
      ['teapots', 1],
      ['teapo', 1],
    ]);
    expect(neutral.terms('Tea, tea and teapots: TEA!')).toEqual(['tea', 'and', 'teapots', 'teapo']);
  });

  test('passages: each term’s mask names the passages of PASSAGE_TERMS terms it occurs in, the last one holding the rest', () => {
    expect([...neutral.passages('Tea, tea and teapots')]).toEqual([
      ['tea', 1],
      ['and', 1],
      ['teapots', 1],
      ['teapo', 1],
    ]);
    const filler = (from: number, n: number) => Array.from({ length: n }, (_, i) => `f${from + i}`).join(' ');
    // "zebra" at term 0 and at term PASSAGE_TERMS (passage 1); "quokka" and its prefix "quokk" far past the last passage.
    const text = `zebra ${filler(0, PASSAGE_TERMS - 1)} zebra ${filler(1000, PASSAGE_TERMS * (MAX_PASSAGE + 2))} quokka`;
    const masks = neutral.passages(text);
    expect(masks.get('zebra')).toBe(0b11);
    expect(masks.get('quokka')).toBe(2 ** MAX_PASSAGE);
    expect(masks.get('quokk')).toBe(2 ** MAX_PASSAGE);
    expect(masks.get(`f${1000 + PASSAGE_TERMS * 2}`)).toBe(2 ** 3);
    expect([...masks.keys()]).toEqual([...neutral.frequencies(text).keys()]);
  });

  test('a long token is cut; a query keeps at most MAX_QUERY_TERMS distinct terms', () => {
    expect(neutral.terms('b'.repeat(500))).toEqual(['b'.repeat(48), 'bbbbb']);
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(neutral.queryTerms(words)).toHaveLength(MAX_QUERY_TERMS);
    expect(neutral.terms(words)).toHaveLength(40);
  });
});

describe('terms as statement parameters', () => {
  test('terms of letters and digits pass as they are', () => {
    expect(checkedTerms(['zx', '4471', 'été'])).toEqual(['zx', '4471', 'été']);
    expect(checkedTerms([])).toEqual([]);
  });

  test.each(["o'clock", 'two words', 'a|b', 'x:*', '!', ''])('refuses a term that is not letters and digits: %j', (term) => {
    expect(() => checkedTerms([term])).toThrow('letters and digits');
  });
});

describe('the offline embedder, v2', () => {
  const embedder = new LocalEmbedder(256);
  const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

  test('stop words carry no weight, unless nothing else is left', async () => {
    expect(await embedder.embed('The bakery of the town')).toEqual(await embedder.embed('bakery town'));
    expect(await embedder.embed('la boulangerie du village')).toEqual(await embedder.embed('boulangerie village'));
    const onlyStopWords = await embedder.embed('I am here');
    expect(onlyStopWords).not.toEqual(await embedder.embed('?!'));
    expect(Math.hypot(...onlyStopWords)).toBeCloseTo(1, 6);
  });

  test('shared word parts bring texts closer (character trigrams)', async () => {
    const [bakery, bakeries, river] = await Promise.all(['bakery', 'bakeries', 'river'].map((t) => embedder.embed(t)));
    expect(cosine(bakery ?? [], bakeries ?? [])).toBeGreaterThan(cosine(bakery ?? [], river ?? []) + 0.15);
  });

  test('its name carries the version', () => {
    expect(embedder.name).toBe('local-lexical-v2/256');
  });
});
