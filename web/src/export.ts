import type { ExportMemoriesJson, JournalJson } from '../../lambda/page/contract.js';
import { api, query, say } from './api.js';
import { el } from './dom.js';

/** Downloads the file `naaba import` reads (docs/export-format.md): every page of memories, then of journal lines. */

async function allPages<A extends { readonly nextCursor: string | null }, T>(
  path: string,
  items: (answer: A) => readonly T[],
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const answer: A = await api<A>(`${path}${cursor ? `?${query({ cursor })}` : ''}`);
    all.push(...items(answer));
    cursor = answer.nextCursor;
  } while (cursor);
  return all;
}

export async function exportAll(): Promise<void> {
  const memories = await allPages<ExportMemoriesJson, unknown>('api/export/memories', (a) => a.memories);
  const journal = await allPages<JournalJson, JournalJson['lines'][number]>('api/export/journal', (a) => a.lines);
  const exportedAt = new Date().toISOString();
  const file = { format: 'naaba-memories', version: 1, exportedAt, memories, journal };
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: 'application/json' }));
  const link = el('a');
  link.href = url;
  link.download = `naaba-memories-${exportedAt.slice(0, 10)}.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  say(`Downloaded ${memories.length} memories and ${journal.length} journal lines.`);
}
