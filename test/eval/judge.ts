/**
 * `npm run eval:judge -- --judge local|bedrock|openai [--split dev|heldout]`: the judging
 * pipeline of MemoryService (exact-restatement rule, then the judge) over SICK and DACCORD, with
 * a confusion table, the false-merge rate and the merge recall.
 */
import { relative } from 'node:path';
import { environment, loadConfig } from '../../lambda/config/env.js';
import type { JudgeOutcome } from '../../lambda/memory/model.js';
import type { Judge } from '../../lambda/ports/judge.js';
import { makeJudge } from '../../lambda/providers.js';
import { choice, EvalUsageError, parseOptions, percent, pool, Progress, positiveInteger } from './cli.js';
import { DEFAULT_DATA_DIR, loadDaccord, loadSick, type Pair } from './data.js';
import { judgeLikeTheService, preflight } from './pipeline.js';

const OUTCOMES: readonly JudgeOutcome[] = ['same', 'different', 'contradicts', 'unavailable'];

interface Tally {
  /** gold label -> judged outcome -> count */
  readonly table: Map<string, Map<JudgeOutcome, number>>;
  exact: number;
}

async function judgeAll<L extends string>(
  judge: Judge,
  name: string,
  pairs: readonly Pair<L>[],
  concurrency: number,
): Promise<Tally> {
  const tally: Tally = { table: new Map(), exact: 0 };
  const progress = new Progress(`judging ${name}`, pairs.length);
  let done = 0;
  let unavailable = 0;
  await pool(pairs, concurrency, async (pair) => {
    const judged = await judgeLikeTheService(judge, pair.a, pair.b);
    const row = tally.table.get(pair.label) ?? new Map<JudgeOutcome, number>();
    row.set(judged.outcome, (row.get(judged.outcome) ?? 0) + 1);
    tally.table.set(pair.label, row);
    if (judged.exact) tally.exact += 1;
    if (judged.outcome === 'unavailable') unavailable += 1;
    done += 1;
    progress.update(done, unavailable ? `${unavailable} unavailable` : '');
  });
  return tally;
}

const count = (t: Tally, gold: readonly string[], outcome?: JudgeOutcome) =>
  gold.reduce((sum, g) => {
    const row = t.table.get(g);
    if (!row) return sum;
    return sum + (outcome ? (row.get(outcome) ?? 0) : [...row.values()].reduce((a, b) => a + b, 0));
  }, 0);

function printTable(t: Tally, golds: readonly string[]): void {
  const cell = (v: string | number, w = 12) => String(v).padStart(w);
  console.log(`  ${'gold \\ judged'.padEnd(16)}${OUTCOMES.map((o) => cell(o)).join('')}${cell('total', 8)}`);
  for (const gold of golds) {
    const row = t.table.get(gold);
    console.log(`  ${gold.padEnd(16)}${OUTCOMES.map((o) => cell(row?.get(o) ?? 0)).join('')}${cell(count(t, [gold]), 8)}`);
  }
}

function reportSick(t: Tally, split: string): void {
  console.log(
    `\nSICK ${split} (${count(t, ['same', 'different', 'contradiction'])} pairs; labels from both entailment directions, corrected subset applied)`,
  );
  printTable(t, ['same', 'different', 'contradiction']);
  console.log(
    `  false-merge rate      ${percent(count(t, ['different', 'contradiction'], 'same'), count(t, ['different', 'contradiction']))}  different or contradicting pairs judged same`,
  );
  console.log(`  merge recall          ${percent(count(t, ['same'], 'same'), count(t, ['same']))}  same-claim pairs judged same`);
  console.log(
    `  contradiction recall  ${percent(count(t, ['contradiction'], 'contradicts'), count(t, ['contradiction']))}  contradicting pairs judged contradicts`,
  );
  console.log(
    `  decided by the exact-restatement rule: ${t.exact}; unavailable: ${count(t, ['same', 'different', 'contradiction'], 'unavailable')}`,
  );
}

function reportDaccord(t: Tally, split: string): void {
  console.log(
    `\nDACCORD ${split} (${count(t, ['compatible', 'contradiction'])} French pairs; compatible vs contradiction, no same-claim label)`,
  );
  printTable(t, ['compatible', 'contradiction']);
  console.log(
    `  false-merge rate      ${percent(count(t, ['contradiction'], 'same'), count(t, ['contradiction']))}  contradicting pairs judged same`,
  );
  console.log(
    `  contradiction recall  ${percent(count(t, ['contradiction'], 'contradicts'), count(t, ['contradiction']))}  contradicting pairs judged contradicts`,
  );
  console.log(
    `  compatible pairs judged same (not a false merge: compatible includes paraphrases): ${count(t, ['compatible'], 'same')}`,
  );
  console.log(
    `  decided by the exact-restatement rule: ${t.exact}; unavailable: ${count(t, ['compatible', 'contradiction'], 'unavailable')}`,
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const options = parseOptions(argv, ['judge', 'split', 'data', 'limit', 'concurrency']);
  const provider = choice(options, 'judge', ['local', 'bedrock', 'openai'], 'local');
  const split = choice(options, 'split', ['dev', 'heldout'], 'dev');
  const dataDir = options.get('data') ?? DEFAULT_DATA_DIR;
  const limit = options.has('limit') ? positiveInteger(options, 'limit', 1) : Number.POSITIVE_INFINITY;
  const concurrency = positiveInteger(options, 'concurrency', provider === 'local' ? 16 : 4);
  const config = loadConfig(environment(), { NAABA_JUDGE: provider });
  const judge = await makeJudge(config);
  await preflight(judge, config.judge);
  const sick = loadSick(dataDir, split).slice(0, limit);
  const daccord = loadDaccord(dataDir, split).slice(0, limit);
  console.log(
    `eval:judge  judge=${judge.name}  split=${split}  data=${relative(process.cwd(), dataDir) || '.'}${Number.isFinite(limit) ? `  limit=${limit}` : ''}`,
  );
  console.log('pipeline: exact-restatement rule (fingerprint equality) first, then the judge, as MemoryService.remember');
  const sickTally = await judgeAll(judge, `SICK ${split}`, sick, concurrency);
  const daccordTally = await judgeAll(judge, `DACCORD ${split}`, daccord, concurrency);
  reportSick(sickTally, split);
  reportDaccord(daccordTally, split);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage =
    error instanceof EvalUsageError
      ? '\nusage: npm run eval:judge -- --judge local|bedrock|openai [--split dev|heldout] [--limit N] [--concurrency N] [--data DIR]'
      : '';
  console.error(`eval:judge: ${(error as Error).message}${usage}`);
  process.exitCode = 1;
});
