import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { container } from '../composition.js';
import type { SweepReport } from '../memory/sweeper.js';
import { count, logger, observed } from '../observability.js';

/** The scheduled sweeper: deletes this region's expired memories and trims its journal, in bounded batches. */
async function handleSweep(_event: ScheduledEvent, _context: Context): Promise<SweepReport> {
  const runtime = container();
  const sweeper = await runtime.sweeper();
  const report = await sweeper.run(runtime.config.region, runtime.config.sweep);
  logger.info('sweep finished', { ...report });
  count(
    'sweep_expired',
    Object.values(report.expired).reduce((sum, n) => sum + n, 0),
  );
  count('sweep_journal_trimmed', report.trimmed);
  count('sweep_incomplete', report.incomplete ? 1 : 0);
  return report;
}

export const handler = middy(handleSweep).use(observed());
