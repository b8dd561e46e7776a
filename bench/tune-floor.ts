/**
 * `npm run tune:floor`: the calibration behind decision 0058, reproducible. In memory, over the
 * LoCoMo development split only, short memories (one turn) and long ones (1 to 10 turns): how the
 * relevance floor's distance bound (a memory the lexical arm did not find is kept only within it)
 * trades the dev questions' recall_all@10 against the share of nonsense queries (invented words,
 * none stored) that come back empty. The lexical scoring in force; `--embedder sentence` calibrates
 * the sentence encoder's bound instead of the offline lexical embedder's (decision 0079).
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../lambda/adapters/local/sentence-embedder.js';
import { choice, parseOptions } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { loadLocomo, parseTurnsPerMemory } from './locomo-data.js';
import { nonsenseQueries } from './nonsense.js';
import { fuse, LexicalReplica, VectorReplica } from './replicas.js';

const BOUNDS = [Number.POSITIVE_INFINITY, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.58, 0.57, 0.56, 0.55, 0.5, 0.4, 0.3, 0];
const NONSENSE_PER_CONVERSATION = 30;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), ['embedder']);
  const embedder =
    choice(options, 'embedder', ['local', 'sentence'] as const, 'local') === 'sentence'
      ? new SentenceEmbedder()
      : new LocalEmbedder(256);
  console.log(`tune:floor  embedder ${embedder.name}`);
  for (const size of ['1', '1-10']) {
    const conversations = loadLocomo(DEFAULT_DATA_DIR, 'dev', parseTurnsPerMemory(size));
    const rows = BOUNDS.map(() => ({ hits: 0, questions: 0, empty: 0, nonsense: 0 }));
    for (const c of conversations) {
      const lexical = new LexicalReplica(c.turns);
      const vector = await VectorReplica.of(c.turns, embedder);
      const asked = [
        ...c.questions.map((q) => ({ text: q.text, evidence: q.evidence })),
        ...nonsenseQueries(
          c.turns.map((t) => t.content),
          NONSENSE_PER_CONVERSATION,
        ).map((text) => ({ text, evidence: undefined })),
      ];
      for (const q of asked) {
        const [v, l] = [await vector.search(q.text), lexical.search(q.text)];
        BOUNDS.forEach((bound, i) => {
          const top = new Set(fuse(v, l, bound).slice(0, 10));
          const row = rows[i];
          if (!row) return;
          if (q.evidence === undefined) {
            row.nonsense += 1;
            row.empty += Number(top.size === 0);
          } else {
            row.questions += 1;
            row.hits += Number(q.evidence.every((e) => top.has(e)));
          }
        });
      }
    }
    console.log(
      `\nturns per memory ${size}\n\n| farthest distance kept without a lexical match | dev recall_all@10 | nonsense queries returning nothing |`,
    );
    console.log('| --- | ---: | ---: |');
    BOUNDS.forEach((bound, i) => {
      const r = rows[i];
      if (r)
        console.log(
          `| ${bound === Number.POSITIVE_INFINITY ? 'no floor' : bound} | ${((100 * r.hits) / r.questions).toFixed(1)} % | ${r.empty}/${r.nonsense} |`,
        );
    });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
