import { Container } from '../../lambda/composition.js';
import { describeConfig, environment, type RuntimeConfig } from '../../lambda/config/env.js';

/** `naaba check`: the configuration in force, where each value came from, and what is missing. Connects to nothing. */
export function check(flags: Record<string, string>): boolean {
  const { config, report, problems } = describeConfig(environment(), flags);
  console.log('settings (flag > environment > default):');
  for (const r of report) console.log(`  ${r.name.padEnd(32)} ${r.value}  [${r.origin}]`);
  console.log('\nresolution:');
  const db = config.database;
  console.log(
    `  database   ${db.kind === 'pglite' ? `embedded PGlite in ${db.dataDir}` : db.kind === 'url' ? 'PostgreSQL-wire URL (NAABA_DATABASE_URL)' : `URL from Secrets Manager secret ${db.secretId}`}`,
  );
  console.log(`  embedder   ${describeEmbedder(config)}`);
  console.log(`  judge      ${describeJudge(config)}`);
  console.log(
    `  curation   ${config.rulesSource}: ${Object.entries(config.rules.kinds)
      .map(([k, r]) => `${k} ${r.ceiling}${r.ttlSeconds ? ` ttl ${r.ttlSeconds}s` : ''}`)
      .join(', ')}; pins ${config.rules.pinLimit}`,
  );
  console.log(`  region     ${config.region}`);
  if (problems.length > 0) {
    console.log('\nproblems:');
    for (const p of problems) console.log(`  - ${p}`);
    return false;
  }
  console.log('\nno problems found');
  return true;
}

function describeEmbedder(config: RuntimeConfig): string {
  const e = config.embedder;
  if (e.provider === 'local') return `local lexical embedder, ${e.dimensions} dimensions (offline)`;
  if (e.provider === 'bedrock')
    return `Bedrock ${e.modelId} in ${e.bedrock.region}, ${e.dimensions} dimensions${e.bedrock.endpoint ? ` via ${e.bedrock.endpoint}` : ''}`;
  return `OpenAI-compatible ${e.model} at ${e.openai.baseUrl}, ${e.dimensions} dimensions`;
}

function describeJudge(config: RuntimeConfig): string {
  const j = config.judge;
  if (j.provider === 'local') return 'local exact-restatement rule only (never merges anything else)';
  if (j.provider === 'bedrock')
    return `Bedrock ${j.modelId} in ${j.bedrock.region}${j.bedrock.endpoint ? ` via ${j.bedrock.endpoint}` : ''}`;
  return `OpenAI-compatible ${j.model} at ${j.openai.baseUrl}`;
}

/** `naaba embed "text"`: what the configured embedder makes of a text. */
export async function embed(config: RuntimeConfig, text: string): Promise<void> {
  const container = new Container(config);
  const embedder = await container.embedder();
  const vector = await embedder.embed(text);
  const norm = Math.hypot(...vector);
  console.log(`provider   ${embedder.name}`);
  console.log(`dimension  ${vector.length} (configured ${embedder.dimensions})`);
  console.log(`norm       ${norm.toFixed(6)}`);
  console.log(
    `head       [${vector
      .slice(0, 6)
      .map((v) => v.toFixed(4))
      .join(', ')}, ...]`,
  );
}
