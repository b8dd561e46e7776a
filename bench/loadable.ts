import { randomUUID } from 'node:crypto';
import { fingerprint } from '../lambda/memory/canonical.js';
import type { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import type { Embedder } from '../lambda/ports/embedder.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';

/** One memory as `TransferStore.load` takes it, for benches that fill partitions in bulk. */
export async function loadable(
  content: string,
  embedder: Embedder,
  analyzer: LexicalAnalyzer,
): Promise<LoadPlan['memories'][number]> {
  return {
    id: randomUUID(),
    content,
    fingerprint: fingerprint(content),
    embedding: await embedder.embed(content),
    frequencies: analyzer.frequencies(content),
  };
}
