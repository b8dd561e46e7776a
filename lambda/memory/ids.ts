/**
 * Memory, key and line ids are UUIDs. One pattern for every layer that checks one (tool input,
 * the page's routes, export files, keys, cursors): any case on the way in, lowercase from then on,
 * as the database returns them.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The id in its stored form (lowercase), or undefined when it is not a UUID. */
export function canonicalId(value: string): string | undefined {
  return UUID_PATTERN.test(value) ? value.toLowerCase() : undefined;
}
