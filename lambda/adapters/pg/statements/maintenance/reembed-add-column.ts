import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

/** A change of dimension's first step: a nullable column of the new dimension beside the old one (PostgreSQL, PGlite). */
export const REEMBED_ADD_COLUMN = statement<{ dimensions: number }>({
  name: 'maintenance/reembed-add-column',
  expects: { fullScanAllowed: true },
  render: (_p, inputs) => {
    if (!Number.isInteger(inputs.dimensions) || inputs.dimensions <= 0)
      throw new RangeError('a vector dimension is a positive integer');
    return sql`ALTER TABLE memories ADD COLUMN embedding_next vector(${verbatim(String(inputs.dimensions))})`;
  },
});
