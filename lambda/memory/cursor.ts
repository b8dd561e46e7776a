import { InvalidInputError } from './errors.js';
import { canonicalId } from './ids.js';

/**
 * Where a paged list continues: the list it was made for, the last row's value in that list's
 * order and its id, so the next page starts right after it. One format for every list a caller
 * pages (the journal, the memory page's listings in each order, an export): base64url of
 * `list|value|id`. Opaque to callers and checked on the way back in, so a crafted value never
 * reaches a store. The form before lists were named (`instant|id`) still reads, for the journal
 * and the newest-first listing, so a page open across an upgrade keeps paging.
 */

/** The paged lists: the journal (by time), and memories by creation, last usefulness or recall count. */
export type CursorList = 'journal' | 'created' | 'last_useful' | 'recalls';

/** The position after which a page starts. */
export interface CursorPosition {
  /** The last row's value in the list's order: an ISO instant, or a count for `recalls`. */
  readonly value: string;
  readonly id: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const COUNT = /^\d{1,10}$/;
/** The instants a row can carry (an import's range, transfer-file.ts): every engine stores them. */
const EARLIEST = Date.parse('1970-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
/** The largest recall count a row holds (int4). */
const MAX_COUNT = 2_147_483_647;

/** An instant as `toISOString` writes it, naming a real day (no 31 February), in the range rows carry. */
function rowInstant(value: string): boolean {
  if (!ISO_INSTANT.test(value)) return false;
  const t = Date.parse(value);
  return t >= EARLIEST && t <= LATEST && new Date(t).toISOString() === value;
}

/** The cursor of the page after the row with this value and id. */
export function encodeCursor(list: CursorList, value: Date | number, id: string): string {
  const text = typeof value === 'number' ? String(value) : value.toISOString();
  return Buffer.from(`${list}|${text}|${id}`).toString('base64url');
}

/** A cursor `encodeCursor` made for the same list, or a clear error; undefined for none. */
export function decodeCursor(cursor: string | undefined, list: CursorList): CursorPosition | undefined {
  if (!cursor) return undefined;
  const parts = Buffer.from(cursor, 'base64url').toString().split('|');
  const legacy = parts.length === 2 && (list === 'journal' || list === 'created');
  const [made, value = '', rawId = ''] = legacy ? [list, ...parts] : parts;
  const id = canonicalId(rawId);
  const valid = list === 'recalls' ? COUNT.test(value) && Number(value) <= MAX_COUNT : rowInstant(value);
  if ((!legacy && parts.length !== 3) || made !== list || !valid || !id) {
    throw new InvalidInputError(
      'cursor is not one this server gave for this list; pass next_cursor from the previous page, or none',
    );
  }
  return { value, id };
}
