import { isExplaining } from '../../lambda/adapters/judge-protocol.js';
import { Container } from '../../lambda/composition.js';
import { describeConfig, type RuntimeConfig } from '../../lambda/config/env.js';
import { FLAG_NAMES } from './args.js';
import { makeEmbedder, makeJudge } from '../../lambda/providers.js';
import type { Terminal } from './terminal.js';

/**
 * `naaba check`: the configuration in force, where each value came from, and what is missing.
 * Connects to nothing, unless `probe` asks for one real call to each configured provider.
 */
export async function check(t: Terminal, flags: Record<string, string>, options: { probe?: boolean } = {}): Promise<boolean> {
  const { config, report, problems } = describeConfig(t.env, flags, FLAG_NAMES);
  t.print('settings (flag > environment > default):');
  for (const r of report) t.print(`  ${r.name.padEnd(32)} ${r.value}  [${r.origin}]`);
  t.print('\nresolution:');
  const db = config.database;
  t.print(
    `  database   ${db.kind === 'pglite' ? `embedded PGlite in ${db.dataDir}` : db.kind === 'url' ? 'PostgreSQL-wire URL (NAABA_DATABASE_URL)' : `URL from Secrets Manager secret ${db.secretId}`}`,
  );
  t.print(`  embedder   ${describeEmbedder(config)}`);
  t.print(`  judge      ${describeJudge(config)}`);
  t.print(
    `  curation   ${config.rulesSource}: ${Object.entries(config.rules.kinds)
      .map(([k, r]) => `${k} ${r.ceiling}${r.ttlSeconds ? ` ttl ${r.ttlSeconds}s` : ''}${r.dedup === false ? ' no-dedup' : ''}`)
      .join(', ')}; pins ${config.rules.pinLimit}`,
  );
  t.print(`  region     ${config.region}`);
  if (problems.length > 0) {
    t.print('\nproblems:');
    for (const p of problems) t.print(`  - ${p}`);
    return false;
  }
  t.print('\nno problems found');
  return options.probe ? probe(t, config) : true;
}

/** Fixed, content-free probe texts: a probe never sends anything a user wrote. */
const PROBE = { stored: 'The probe says the sky is blue.', incoming: 'The probe says the sky is green.' } as const;

/** The error's message, then the provider's own words if it gave any (already redacted by the adapter). */
function failureText(error: unknown): string {
  const lines = [error instanceof Error ? error.message : String(error)];
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const detail = (e as { detail?: unknown }).detail;
    if (typeof detail === 'string' && detail !== '') {
      lines.push(`provider said: ${detail}`);
      break;
    }
  }
  return lines.join('\n             ');
}

async function timed(t: Terminal, label: string, call: () => Promise<string>): Promise<boolean> {
  const started = performance.now();
  try {
    const what = await call();
    t.print(`  ${label.padEnd(10)} ok in ${Math.round(performance.now() - started)} ms (${what})`);
    return true;
  } catch (error) {
    t.print(`  ${label.padEnd(10)} FAILED after ${Math.round(performance.now() - started)} ms: ${failureText(error)}`);
    return false;
  }
}

/** `naaba check --probe`: one real call to the embedder and one to the judge, with latency or the reason it failed. */
async function probe(t: Terminal, config: RuntimeConfig): Promise<boolean> {
  t.print('\nprobe (one real call to each provider):');
  const embedder = await makeEmbedder(config);
  const judge = await makeJudge(config);
  const embedded = await timed(t, 'embedder', async () => {
    const vector = await embedder.embed(PROBE.stored);
    if (vector.length !== embedder.dimensions)
      throw new Error(`got ${vector.length} dimensions, configured ${embedder.dimensions}`);
    return `${vector.length} dimensions from ${embedder.name}`;
  });
  const judged = await timed(t, 'judge', async () => {
    const verdict = isExplaining(judge)
      ? await judge.verdict(PROBE.stored, PROBE.incoming)
      : await judge.compare(PROBE.stored, PROBE.incoming);
    if (verdict === 'unavailable') throw new Error('the judge was unavailable');
    return `verdict "${verdict}" from ${judge.name}`;
  });
  return embedded && judged;
}

/** How a remote call is bounded, as `naaba check` shows it. */
const bounds = (p: { timeoutMs: number; retry: { maxAttempts: number; budgetMs: number } }) =>
  `; ${p.timeoutMs} ms per attempt, up to ${p.retry.maxAttempts} attempts within ${p.retry.budgetMs} ms`;

function describeEmbedder(config: RuntimeConfig): string {
  const e = config.embedder;
  if (e.provider === 'local') return `local lexical embedder, ${e.dimensions} dimensions (offline)`;
  if (e.provider === 'sentence') return `local sentence encoder (USE lite), ${e.dimensions} dimensions (offline)`;
  if (e.provider === 'bedrock')
    return `Bedrock ${e.modelId} in ${e.bedrock.region}, ${e.dimensions} dimensions${e.bedrock.endpoint ? ` via ${e.bedrock.endpoint}` : ''}${bounds(e)}`;
  return `OpenAI-compatible ${e.model} at ${e.openai.baseUrl}, ${e.dimensions} dimensions${bounds(e)}`;
}

function describeJudge(config: RuntimeConfig): string {
  const j = config.judge;
  if (j.provider === 'local') return 'local exact-restatement rule only (never merges anything else)';
  if (j.provider === 'bedrock')
    return `Bedrock ${j.modelId} in ${j.bedrock.region}${j.bedrock.endpoint ? ` via ${j.bedrock.endpoint}` : ''}${bounds(j)}`;
  return `OpenAI-compatible ${j.model} at ${j.openai.baseUrl}${bounds(j)}`;
}

/** `naaba embed "text"`: what the configured embedder makes of a text. */
export async function embed(t: Terminal, config: RuntimeConfig, text: string): Promise<void> {
  const container = new Container(config);
  const embedder = await container.embedder();
  const vector = await embedder.embed(text);
  const norm = Math.hypot(...vector);
  t.print(`provider   ${embedder.name}`);
  t.print(`dimension  ${vector.length} (configured ${embedder.dimensions})`);
  t.print(`norm       ${norm.toFixed(6)}`);
  t.print(
    `head       [${vector
      .slice(0, 6)
      .map((v) => v.toFixed(4))
      .join(', ')}, ...]`,
  );
}
