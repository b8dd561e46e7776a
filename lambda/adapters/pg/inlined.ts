import pg from 'pg';
import type { Query } from './sql-client.js';

/**
 * A query's text with each placeholder replaced by its value as a literal, converted and escaped
 * by pg itself (`prepareValue`, `escapeLiteral`): for a message of several statements, which the
 * simple protocol sends without parameters. Every placeholder of a statement is typed by its
 * context or a cast, as a literal is; our statements hold no `$` in a string.
 */
export function inlined(query: Query): string {
  // pg converts values this way before it sends them as parameters; its types leave `utils` out.
  const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;
  return query.text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = prepareValue(query.values[Number(n) - 1]);
    if (value === null || value === undefined) return 'NULL';
    if (typeof value !== 'string')
      throw new TypeError(`placeholder $${n} of ${query.statement?.name ?? 'a query'} has no text form`);
    return pg.escapeLiteral(value);
  });
}
