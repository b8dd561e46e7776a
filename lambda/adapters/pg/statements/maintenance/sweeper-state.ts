import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * One entry of a region's sweeper state (migration 0025/0022, decision 0151): where a walk stopped,
 * or the kinds put into the expiry index. Read by its whole key, in the region's own rows.
 */
export const SWEEPER_STATE = statement<{ region: string; name: string }, { value: string | null }>({
  name: 'maintenance/sweeper-state',
  expects: {},
  render: (p) => sql`SELECT value FROM sweeper_state WHERE region = ${p.region} AND name = ${p.name}`,
});
