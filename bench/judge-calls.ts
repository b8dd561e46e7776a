/**
 * `npm run bench:judge-calls -- [--store pglite|memory]`: how many model calls a remember makes
 * (issue 33, decision 0114), and what they cost per 1,000 remembers at Bedrock's price for the
 * judge model. Two sets of remembers through the memory service, with a judge stub that counts
 * its calls and answers as a model would:
 *
 * - LoCoMo dev (2,760 turns, each conversation its own user, every turn an `event`): the stub
 *   answers `different` to everything, so every candidate is asked (the most calls this data can
 *   make: a `same` or `contradicts` ends the asking);
 * - the 60 update pairs of test/eval/updates/dev.json (every older statement, then every newer
 *   one): the stub answers `contradicts` for a pair's two statements, `different` otherwise.
 *
 * The cost of a call is Amazon Nova Micro's on-demand price ($0.035 per million input tokens,
 * $0.14 per million output tokens; docs/deployment.md, "Cost"), its input the judge's system
 * prompt and the user turn it is actually sent (`judgeUserMessage`), estimated at one token per
 * four bytes as docs/deployment.md does, and its output the verdict's bound (`VERDICT_MAX_TOKENS`).
 */
import { JUDGE_SYSTEM_PROMPT, judgeUserMessage, VERDICT_MAX_TOKENS } from '../lambda/adapters/judge-protocol.js';
import { fingerprint } from '../lambda/memory/canonical.js';
import type { JudgeOutcome } from '../lambda/memory/model.js';
import { DEFAULT_RULES } from '../lambda/memory/policy/kinds.js';
import { JUDGED_CANDIDATES } from '../lambda/memory/policy/supersession.js';
import { choice, parseOptions } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import type { Judge } from '../lambda/ports/judge.js';
import { UPDATE_PAIRS } from '../test/eval/updates.js';
import { freshDatabase } from '../test/support/database.js';
import { CLIENT, principal, serviceOver } from '../test/support/memory.js';
import { loadLocomo } from './locomo-data.js';

/** Amazon Nova Micro on demand, US dollars per million tokens (docs/deployment.md, "Cost"). */
const NOVA_MICRO = { input: 0.035, output: 0.14 } as const;

const store = choice(parseOptions(process.argv.slice(2), ['store']), 'store', ['pglite', 'memory'] as const, 'pglite');

/** A judge that answers like a model and counts the calls of the current remember. */
class CountingJudge implements Judge {
  readonly name = 'counting';
  calls = 0;
  dollars = 0;

  constructor(private readonly answer: (existing: string, incoming: string) => JudgeOutcome) {}

  async compare(existing: string, incoming: string): Promise<JudgeOutcome> {
    this.calls += 1;
    const bytes = Buffer.byteLength(JUDGE_SYSTEM_PROMPT) + Buffer.byteLength(judgeUserMessage(existing, incoming));
    this.dollars += (Math.ceil(bytes / 4) * NOVA_MICRO.input + VERDICT_MAX_TOKENS * NOVA_MICRO.output) / 1e6;
    return this.answer(existing, incoming);
  }
}

interface Tally {
  readonly perRemember: number[];
  dollars: number;
}

/** Remembers `users`' texts in order, each user its own; the calls each remember made. */
async function measure(
  users: readonly { kind: string; content: string }[][],
  answer: (existing: string, incoming: string) => JudgeOutcome,
): Promise<Tally> {
  const db = store === 'pglite' ? await freshDatabase(256) : undefined;
  const judge = new CountingJudge(answer);
  const rules = { kinds: { ...DEFAULT_RULES.kinds, event: { ceiling: 100_000, ttlSeconds: null } } };
  const tally: Tally = { perRemember: [], dollars: 0 };
  try {
    const h = serviceOver(db ?? 'memory', { judge, rules });
    for (const texts of users) {
      const who = principal();
      for (const { kind, content } of texts) {
        judge.calls = 0;
        await h.service.remember(who, CLIENT, { content, kind });
        tally.perRemember.push(judge.calls);
      }
    }
    tally.dollars = judge.dollars;
    return tally;
  } finally {
    await db?.close();
  }
}

function report(name: string, t: Tally): void {
  const n = t.perRemember.length;
  const calls = t.perRemember.reduce((a, b) => a + b, 0);
  const shares = Array.from({ length: JUDGED_CANDIDATES + 1 }, (_, c) => {
    const k = t.perRemember.filter((x) => x === c).length;
    return `${c}: ${k} (${((100 * k) / n).toFixed(1)} %)`;
  });
  console.log(`\n${name}: ${n} remembers, ${calls} judge calls, ${(calls / n).toFixed(2)} per remember`);
  console.log(`  calls per remember  ${shares.join('  ')}`);
  console.log(
    `  Nova Micro: $${((1000 * t.dollars) / n).toFixed(4)} per 1,000 remembers ($${(t.dollars / Math.max(calls, 1)).toFixed(7)} per call)`,
  );
}

async function main(): Promise<void> {
  console.log(`bench:judge-calls  store=${store}  judged candidates at most ${JUDGED_CANDIDATES}`);
  const locomo = loadLocomo(DEFAULT_DATA_DIR, 'dev').map((c) => c.turns.map((t) => ({ kind: 'event', content: t.content })));
  report('LoCoMo dev, the stub answering different', await measure(locomo, () => 'different'));
  const updateOf = new Map(UPDATE_PAIRS.map((p) => [fingerprint(p.older), fingerprint(p.newer)]));
  const updates = [
    [
      ...UPDATE_PAIRS.map((p) => ({ kind: p.kind, content: p.older })),
      ...UPDATE_PAIRS.map((p) => ({ kind: p.kind, content: p.newer })),
    ],
  ];
  report(
    'update pairs, the stub answering contradicts for each pair',
    await measure(updates, (existing, incoming) =>
      updateOf.get(fingerprint(existing)) === fingerprint(incoming) ? 'contradicts' : 'different',
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
