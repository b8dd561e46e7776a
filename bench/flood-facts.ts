/**
 * 100 distinct facts, each with 10 restatements that differ only in case, accents, spacing and
 * punctuation: the restatement flood an agent produces when it re-learns what it already knows.
 */

const PEOPLE = [
  'Zoé',
  'Hélène',
  'Aïssata',
  'Rasmané',
  'Noël',
  'Jérôme',
  'Chloé',
  'Mathéo',
  'Inès',
  'Léa',
  'Aminata',
  'Boubacar',
  'Salif',
  'Fatimata',
  'Moussa',
  'Awa',
  'Idrissa',
  'Clémence',
  'Éric',
  'Désiré',
];
const CITIES = ['Genève', 'Bobo-Dioulasso', 'Québec', 'Montréal', 'Zürich', 'Ségou', 'Nîmes', 'Thiès', 'Kédougou', 'Orléans'];
const JOBS = [
  'médecin',
  'pharmacienne',
  'ingénieur réseau',
  'enseignante',
  'pâtissier',
  'éleveur',
  'sage-femme',
  'électricien',
  'géologue',
  'libraire',
];
const DRINKS = [
  'thé à la menthe',
  'café au lait',
  'bissap glacé',
  'jus de gingembre',
  'crème de cassis',
  'thé vert',
  'eau gazeuse',
  'chocolat chaud',
  'dolo',
  'lait caillé',
];
const PETS = [
  'un perroquet gris',
  'une chèvre naine',
  'deux chats siamois',
  'un âne têtu',
  'un lévrier',
  'une tortue',
  'des poules',
  'un chiot',
  'un poisson rouge',
  'un hérisson',
];

export function distinctFacts(): string[] {
  return PEOPLE.flatMap((p, i) => [
    `${p} habite à ${CITIES[i % 10]}.`,
    `${p} travaille comme ${JOBS[(i + 3) % 10]}.`,
    `${p} préfère le ${DRINKS[(i + 5) % 10]} le matin.`,
    `${p} est née en ${1950 + ((i * 7) % 60)} à ${CITIES[(i + 4) % 10]}.`,
    `${p} a ${PETS[(i + 7) % 10]} à la maison.`,
  ]);
}

const stripAccents = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '');

/** Ten spellings of one fact, all equal once case, accents, spacing and punctuation are set aside. */
export function restatements(fact: string): string[] {
  const bare = fact.replace(/\.$/, '');
  return [
    fact,
    fact.toLowerCase(),
    fact.toUpperCase(),
    stripAccents(fact),
    fact.replace(/ /g, '  '),
    bare,
    `  ${bare} !  `,
    stripAccents(fact).toLowerCase(),
    `${bare} .`,
    stripAccents(bare).toUpperCase(),
  ];
}
