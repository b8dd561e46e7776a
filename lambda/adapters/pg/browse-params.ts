import { InvalidInputError } from '../../memory/errors.js';
import type { MemoryFilters, MemoryOrder } from '../../ports/memory-store.js';

/**
 * The page's listing cursor: the order it was made for, the last row's value in that order and
 * its id, so that the next page starts right after it whatever the order. Opaque to callers, and
 * checked on the way back in: a crafted value never reaches SQL.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const COUNT = /^\d{1,10}$/;

/** Where a page starts: after the row with this value (as text) and id. */
export interface BrowseAfter {
  readonly value: string;
  readonly id: string;
}

interface LastRow {
  readonly id: string;
  readonly created_at: Date;
  readonly last_useful_at: Date;
  readonly recall_count: number;
}

/** The cursor of the page after `last`, listed in `order`. */
export function browseCursor(order: MemoryOrder, last: LastRow): string {
  const value =
    order === 'recalls'
      ? String(last.recall_count)
      : new Date(order === 'created' ? last.created_at : last.last_useful_at).toISOString();
  return Buffer.from(`${order}|${value}|${last.id}`).toString('base64url');
}

/**
 * A cursor `browseCursor` made for the same order, or a clear error. The form before orders
 * existed (`instant|id`, newest first) still reads, so a page open across an upgrade keeps paging.
 */
export function parseBrowseCursor(cursor: string | undefined, order: MemoryOrder): BrowseAfter | undefined {
  if (!cursor) return undefined;
  const parts = Buffer.from(cursor, 'base64url').toString().split('|');
  const [made, value = '', id = ''] = parts.length === 2 ? ['created', ...parts] : parts;
  const valid = order === 'recalls' ? COUNT.test(value) : ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
  if (parts.length > 3 || made !== order || !valid || !UUID.test(id)) {
    throw new InvalidInputError(
      'cursor is not one this server gave for this order; pass next_cursor from the previous page, or none',
    );
  }
  return { value, id };
}

/** $4 to $10 of the listing statement: the cursor, then each filter or null. */
export function browseParams(after: BrowseAfter | undefined, filters: MemoryFilters = {}): unknown[] {
  return [
    after?.value ?? null,
    after?.id ?? null,
    filters.agent ?? null,
    filters.client ?? null,
    filters.origin ?? null,
    filters.pinned ?? null,
    filters.conflicting ?? null,
  ];
}
