import { randomUUID } from 'node:crypto';
import { TRANSFER_FORMAT } from '../../lambda/memory/transfer/transfer-file.js';

/** One memory of an export file as `naaba export` writes it: a fact never recalled, restated once, with no links. */
export function exportedMemory(content: string, at: string, client = 'bench') {
  return {
    id: randomUUID(),
    kind: 'fact',
    content,
    pinned: false,
    createdAt: at,
    lastUsefulAt: at,
    recallCount: 0,
    restatements: 1,
    agent: 'bench',
    client,
    origin: null,
    restatedBy: [],
    conflicts: [],
  };
}

/** An export file of these memories and no journal line, exported at `exportedAt`. */
export function exportDocument(memories: readonly ReturnType<typeof exportedMemory>[], exportedAt = new Date().toISOString()) {
  return { format: TRANSFER_FORMAT, version: 1, exportedAt, memories, journal: [] };
}
