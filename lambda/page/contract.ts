import type { ClientConfig } from '../http/client-config.js';
import type { JournalLineJson, MemoryJson } from '../memory/memory-json.js';
import type { MemoryOutlook, PinRoom, PinVerdict } from '../memory/page/outlook.js';
import type { JournalDay, JournalHour } from '../memory/page/page-types.js';
import type { ImportReport } from '../memory/transfer/import-report.js';
import type { WriterCount } from '../ports/page-store.js';

/**
 * The page API's answers as JSON, one type per route (api.ts builds them): the memory page
 * (web/src/) is typed by these very types, so a field renamed here fails the page's typecheck, not
 * a Chromium test. Types only: nothing here runs in the browser.
 */

/** Whether Pin keeps a memory, and if not why. */
export type PinVerdictJson = PinVerdict;

/** A memory as the page shows it: the one JSON shape, and what the policy says of it now. */
export interface PageMemory extends MemoryJson {
  readonly outlook: MemoryOutlook;
}

/** A memory search found, with the ranking's score and distance. */
export interface FoundMemory extends PageMemory {
  readonly score: number;
  readonly distance: number;
}

export interface KindCountJson {
  readonly kind: string;
  readonly ceiling: number;
  readonly ttlSeconds: number | null;
  readonly count: number;
  readonly pinned: number;
}

export interface OverviewJson {
  readonly kinds: readonly KindCountJson[];
  readonly pinned: number;
  readonly pinLimit: number;
  readonly pins: PinRoom;
  readonly judge: { readonly name: string; readonly lastCallOk: boolean | null };
  readonly embedder: string;
}

export interface MemoriesJson {
  readonly memories: readonly PageMemory[];
  readonly nextCursor: string | null;
  readonly total: number | null;
}

export interface MemoryAnswerJson {
  readonly memory: PageMemory;
}

export interface SearchJson {
  readonly memories: readonly FoundMemory[];
}

export interface PinJson {
  readonly id: string | undefined;
  readonly pinned: boolean;
  readonly changed: boolean;
}

export interface PinsJson {
  readonly changed: number;
}

export interface ForgetJson {
  readonly deleted?: readonly string[];
  readonly count: number;
  readonly journalLinesRemoved?: number;
}

export interface WritersJson {
  readonly writers: readonly WriterCount[];
}

export interface ConnectJson {
  readonly clients: readonly (ClientConfig & { readonly command: string })[];
}

/** A page of the export file's memories: the page puts them into the file unread (docs/export-format.md). */
export interface ExportMemoriesJson {
  readonly memories: readonly unknown[];
  readonly nextCursor: string | null;
}

export interface JournalJson {
  readonly lines: readonly JournalLineJson[];
  readonly nextCursor: string | null;
}

export interface ImportJson {
  readonly imported: ImportReport;
}

export interface DailyJson {
  readonly days: readonly JournalDay[];
}

export interface HourlyJson {
  readonly hours: readonly JournalHour[];
}

/** A memory first in line to go, and why; Pin's verdict beside it. */
export interface EvictNextJson {
  readonly id: string;
  readonly content: string;
  readonly lastUsefulAt: string;
  readonly recallCount: number;
  readonly supersededBy: string | null;
  readonly reason: string;
  readonly pin: PinVerdict;
}

export interface ExpiringNextJson {
  readonly id: string;
  readonly content: string;
  readonly expiresAt: string;
  readonly reason: string | null;
  readonly pin: PinVerdict;
}

export interface KindOutlookJson {
  readonly kind: string;
  readonly ceiling: number;
  readonly count: number;
  readonly full: boolean;
  readonly evictNext: readonly EvictNextJson[];
  readonly expiringNext: readonly ExpiringNextJson[];
}

export interface NextJson {
  readonly kinds: readonly KindOutlookJson[];
}

/** An error answer of any route. */
export interface ErrorJson {
  readonly error?: string;
  readonly message?: string;
}
