import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of a region's request windows begun before the cutoff (every window is shorter than a day). */
export const DELETE_OLD_WINDOWS = statement<{ region: string; before: Date; batch: number }>({
  name: 'oauth/delete-old-windows',
  expects: { regionBatch: true },
  render: (p) => sql`DELETE FROM oauth_rate_limits WHERE region = ${p.region} AND (address, route) IN (
      SELECT address, route FROM oauth_rate_limits WHERE region = ${p.region} AND window_start < ${p.before}::timestamptz LIMIT ${p.batch}::int)
    RETURNING 1`,
});
