/**
 * `npm run bench:embedder -- [--texts 500]`: what each offline embedder costs on this machine, in
 * one process, the lexical embedder first (it loads nothing) and then the sentence encoder: the
 * time from construction to the first vector (module and model load included), the resident
 * memory it added, and the median and 90th percentile time per text over LoCoMo dev turns (one
 * text per call, as remember and recall embed) and over LoCoMo dev questions. Numbers for
 * decision 0079; a shared machine's noise falls on both embedders alike, so read them as ratios.
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../lambda/adapters/local/sentence-embedder.js';
import type { Embedder } from '../lambda/ports/embedder.js';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { loadLocomo } from './locomo-data.js';

const options = parseOptions(process.argv.slice(2), ['texts']);
const count = positiveInteger(options, 'texts', 500);
const conversations = loadLocomo(DEFAULT_DATA_DIR, 'dev');
const turns = conversations.flatMap((c) => c.turns.map((t) => t.content)).slice(0, count);
const questions = conversations.flatMap((c) => c.questions.map((q) => q.text)).slice(0, count);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? NaN;
const megabytes = () => process.memoryUsage().rss / 1e6;

async function perText(embedder: Embedder, texts: readonly string[]): Promise<string> {
  const times: number[] = [];
  for (const text of texts) {
    const t = performance.now();
    await embedder.embed(text);
    times.push(performance.now() - t);
  }
  return `p50 ${quantile(times, 0.5).toFixed(2)} ms, p90 ${quantile(times, 0.9).toFixed(2)} ms`;
}

console.log(
  `bench:embedder  ${turns.length} LoCoMo dev turns and ${questions.length} questions, one text per call, Node ${process.version}`,
);
for (const make of [() => new LocalEmbedder(256), () => new SentenceEmbedder()]) {
  const before = megabytes();
  const started = performance.now();
  const embedder = make();
  await embedder.embed('The first text pays for loading.');
  const startup = performance.now() - started;
  const turnCost = await perText(embedder, turns);
  const questionCost = await perText(embedder, questions);
  console.log(
    `  ${embedder.name}: first vector after ${startup.toFixed(0)} ms; resident memory +${(megabytes() - before).toFixed(0)} MB; per turn ${turnCost}; per question ${questionCost}; ${embedder.dimensions * 4} bytes per stored vector`,
  );
}
