import type { Container } from './composition.js';
import type { SweepOptions, SweepReport } from './memory/maintenance/sweeper.js';

/** OAuth codes and tokens are kept a day past their expiry, then go (decision 0054). */
const OAUTH_GRACE_MS = 24 * 3_600_000;

export interface RegionSweepReport extends SweepReport {
  /** Long-expired OAuth codes and tokens deleted (one bounded batch). */
  readonly oauthExpired: number;
}

/**
 * One sweep of the container's region: its expired memories (journaled as expiry) and its journal
 * lines past retention, in bounded batches, then one bounded batch of long-expired OAuth codes and
 * tokens. The one sweep there is: the scheduled Lambda, the local server's timer and `naaba sweep`
 * all run this function.
 */
export async function sweepRegion(runtime: Container, onBatch?: SweepOptions['onBatch']): Promise<RegionSweepReport> {
  const sweeper = await runtime.sweeper();
  const { batchSize, maxBatches } = runtime.config.sweep;
  const swept = await sweeper.run(runtime.config.region, { batchSize, maxBatches, onBatch });
  const cutoff = new Date(runtime.clock.now().getTime() - OAUTH_GRACE_MS);
  const oauthExpired = await (await runtime.oauthStore()).deleteExpired(cutoff, runtime.config.sweep.batchSize);
  return { ...swept, oauthExpired };
}

/** How many memories a sweep expired, over all kinds. */
export const expiredTotal = (report: SweepReport) => Object.values(report.expired).reduce((sum, n) => sum + n, 0);
