import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { container } from '../composition.js';
import type { SweepReport } from '../memory/sweeper.js';
import { count, logger, observed } from '../observability.js';

/** OAuth codes and tokens are kept a day past their expiry, then go (decision 0054). */
const OAUTH_GRACE_MS = 24 * 3_600_000;

/**
 * The scheduled sweeper: deletes this region's expired memories and trims its journal, in bounded
 * batches; then one bounded batch of long-expired OAuth codes and tokens.
 */
async function handleSweep(_event: ScheduledEvent, _context: Context): Promise<SweepReport & { oauthExpired: number }> {
  const runtime = container();
  const sweeper = await runtime.sweeper();
  const swept = await sweeper.run(runtime.config.region, runtime.config.sweep);
  const cutoff = new Date(runtime.clock.now().getTime() - OAUTH_GRACE_MS);
  const oauthExpired = await (await runtime.oauthStore()).deleteExpired(cutoff, runtime.config.sweep.batchSize);
  const report = { ...swept, oauthExpired };
  logger.info('sweep finished', { ...report });
  count('sweep_oauth_expired', oauthExpired);
  count(
    'sweep_expired',
    Object.values(report.expired).reduce((sum, n) => sum + n, 0),
  );
  count('sweep_journal_trimmed', report.trimmed);
  count('sweep_incomplete', report.incomplete ? 1 : 0);
  return report;
}

export const handler = middy(handleSweep).use(observed());
