import { canonicalText } from '../lambda/memory/canonical.js';
import { call, connect, startTestEndpoint } from '../test/support/endpoint.js';
import { distinctFacts, restatements } from './flood-facts.js';

/**
 * `npm run bench:flood`: 1,000 remembers (100 facts x 10 restatements) through the local
 * endpoint, with curation on (the defaults) and off (append-only: dedup off, no effective
 * ceiling — the usual agent memory). Reports memories stored and how many distinct facts fill
 * the top 10 of a recall for each fact.
 */

interface Run {
  readonly stored: number;
  readonly distinctInTop10: number[];
}

async function flood(label: string, env: Record<string, string>): Promise<Run> {
  const endpoint = await startTestEndpoint({ env: { NAABA_LOG_LEVEL: 'SILENT', ...env } });
  const client = await connect(endpoint.mcpUrl, (await endpoint.issueKey('flood-agent')).token);
  const facts = distinctFacts();
  const variants = facts.map(restatements);
  for (let round = 0; round < 10; round += 1) {
    for (const spellings of variants)
      await call(client, 'remember', { content: spellings[round], kind: 'fact', origin: `round ${round}` });
    process.stderr.write(`  ${label}: ${(round + 1) * facts.length} remembered\n`);
  }
  const state = await call<{ counts: { per_kind: Record<string, number> } }>(client, 'curation_state', {});
  const factOf = new Map(facts.map((f, i) => [canonicalText(f), i]));
  const distinctInTop10: number[] = [];
  for (const fact of facts) {
    const found = await call<{ memories: { content: string }[] }>(client, 'recall', { query: fact, kinds: ['fact'], limit: 10 });
    distinctInTop10.push(new Set(found.structuredContent.memories.map((m) => factOf.get(canonicalText(m.content)))).size);
  }
  await client.close();
  await endpoint.close();
  return { stored: state.structuredContent.counts.per_kind.fact ?? 0, distinctInTop10 };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const curated = await flood('curation on', {});
const appendOnly = await flood('curation off', {
  NAABA_CURATION: JSON.stringify({ kinds: { fact: { ceiling: 100000, dedup: false } } }),
});

console.log('| 1,000 remembers: 100 facts x 10 restatements | curation on (naaba defaults) | curation off (append-only) |');
console.log('| --- | --- | --- |');
console.log(`| memories stored (target 100) | ${curated.stored} | ${appendOnly.stored} |`);
console.log(
  `| distinct facts in the top 10 of recall, mean over the 100 facts | ${mean(curated.distinctInTop10).toFixed(2)} | ${mean(appendOnly.distinctInTop10).toFixed(2)} |`,
);
console.log(`| ... worst fact | ${Math.min(...curated.distinctInTop10)} | ${Math.min(...appendOnly.distinctInTop10)} |`);
