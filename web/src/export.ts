import type { ExportMemoriesJson, JournalJson } from '../../lambda/page/contract.js';
import { api, query, say } from './api.js';
import { el } from './dom.js';

/** Downloads the file `naaba import` reads (docs/export-format.md): every page of memories, then of journal lines. */

async function allPages<K extends 'memories' | 'lines'>(
  path: string,
  field: K,
): Promise<(K extends 'memories' ? ExportMemoriesJson['memories'] : JournalJson['lines'])[number][]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const answer: Record<string, unknown> & { nextCursor: string | null } = await api(
      `${path}${cursor ? `?${query({ cursor })}` : ''}`,
    );
    items.push(...(answer[field] as unknown[]));
    cursor = answer.nextCursor;
  } while (cursor);
  return items as never;
}

export async function exportAll(): Promise<void> {
  const memories = await allPages('api/export/memories', 'memories');
  const journal = await allPages('api/export/journal', 'lines');
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
