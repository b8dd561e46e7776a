import { randomUUID } from 'node:crypto';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { Scope, Source } from '../../lambda/memory/model.js';
import type { InsertPlan } from '../../lambda/ports/curation-store.js';

const analyzer = new LexicalAnalyzer();

/** What the store suites insert unless a test says otherwise: a new `fact` of `scope`, unpinned, ceiling 100, its own terms. */
export function insertPlan(
  scope: Scope,
  source: Source,
  over: Partial<InsertPlan> & Pick<InsertPlan, 'content' | 'embedding'>,
): InsertPlan {
  return {
    scope,
    id: randomUUID(),
    kind: 'fact',
    fingerprint: over.content,
    pinned: false,
    source,
    conflictsWith: undefined,
    ceiling: 100,
    pinLimit: 10,
    sourcesKept: 3,
    terms: analyzer.terms(over.content),
    expiredBefore: null,
    ...over,
  };
}
