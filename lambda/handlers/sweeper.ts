import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { container } from '../composition.js';
import { count, logger, observed } from '../observability.js';
import { expiredTotal, type RegionSweepReport, sweepRegion } from '../region-sweep.js';

/**
 * The scheduled sweeper: deletes this region's expired memories and trims its journal, in bounded
 * batches; then one bounded batch of long-expired OAuth codes and tokens.
 */
async function handleSweep(_event: ScheduledEvent, _context: Context): Promise<RegionSweepReport> {
  const report = await sweepRegion(container());
  logger.info('sweep finished', { ...report });
  count('sweep_oauth_expired', report.oauthExpired);
  count('sweep_expired', expiredTotal(report));
  count('sweep_journal_trimmed', report.trimmed);
  count('sweep_incomplete', report.incomplete ? 1 : 0);
  return report;
}

export const handler = middy(handleSweep).use(observed());
