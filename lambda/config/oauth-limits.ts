import { DEFAULT_OAUTH_RATE_LIMITS, LIMITED_ROUTES, type LimitedRoute, type OAuthRateLimits } from '../auth/oauth-limits.js';
import { formatDuration, parseDuration } from './duration.js';

/** The longest window a limit may have: the sweeper deletes windows a day after they began. */
const MAX_WINDOW_SECONDS = 24 * 3_600;

/** The limits as the setting writes them: `register=20/1h,authorize=100/15m,token=50/15m,revoke=50/15m`. */
export function formatRateLimits(limits: OAuthRateLimits): string {
  return LIMITED_ROUTES.map((r) => `${r}=${limits[r].requests}/${formatDuration(limits[r].windowSeconds)}`).join(',');
}

/**
 * NAABA_OAUTH_RATE_LIMITS: requests per client address and window for some of the limited OAuth
 * routes; the routes left out keep their defaults. Resolves the limits, or the problems found.
 */
export function parseRateLimits(text: string): { limits: OAuthRateLimits; problems: string[] } {
  const limits: Record<LimitedRoute, OAuthRateLimits[LimitedRoute]> = { ...DEFAULT_OAUTH_RATE_LIMITS };
  const problems: string[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d{1,6})\/(\S+)$/.exec(part);
    const route = match?.[1] as LimitedRoute | undefined;
    const windowSeconds = parseDuration(match?.[3] ?? '');
    const requests = Number(match?.[2]);
    if (!route || !LIMITED_ROUTES.includes(route) || windowSeconds === undefined || requests < 1) {
      problems.push(
        `NAABA_OAUTH_RATE_LIMITS: "${part}" is not ROUTE=REQUESTS/WINDOW with ROUTE one of ${LIMITED_ROUTES.join(', ')} (e.g. token=50/15m)`,
      );
      continue;
    }
    if (windowSeconds > MAX_WINDOW_SECONDS) {
      problems.push(`NAABA_OAUTH_RATE_LIMITS: "${part}": a window of at most 24h`);
      continue;
    }
    limits[route] = { requests, windowSeconds };
  }
  return { limits, problems };
}
