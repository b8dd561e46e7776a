import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CountRequestInputs {
  readonly region: string;
  readonly address: string;
  readonly route: string;
  readonly now: Date;
  /** The start at or before which a window has ended. */
  readonly windowSince: Date;
}

/** One request against a per-address limit (decision 0064): a new window when none is open, else one more in the open one. */
export const COUNT_REQUEST = statement<CountRequestInputs, { hits: number | string; window_start: Date }>({
  name: 'oauth/count-request',
  expects: {},
  render: (p) => sql`INSERT INTO oauth_rate_limits (region, address, route, window_start, hits)
    VALUES (${p.region}, ${p.address}, ${p.route}, ${p.now}::timestamptz, 1)
    ON CONFLICT (region, address, route) DO UPDATE SET
      hits = CASE WHEN oauth_rate_limits.window_start <= ${p.windowSince}::timestamptz THEN 1 ELSE oauth_rate_limits.hits + 1 END,
      window_start = CASE WHEN oauth_rate_limits.window_start <= ${p.windowSince}::timestamptz THEN ${p.now}::timestamptz
                          ELSE oauth_rate_limits.window_start END
    RETURNING hits, window_start`,
});
