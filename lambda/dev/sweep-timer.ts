import type { Container } from '../composition.js';
import { loggable, logger } from '../observability.js';
import { type RegionSweepReport, sweepRegion } from '../region-sweep.js';

/** A running schedule of local sweeps; `stop` waits for a sweep in progress to finish. */
export interface SweepTimer {
  /** Runs one sweep now (after any in progress), as `naaba sweep` asks through the running server. */
  sweepNow(): Promise<RegionSweepReport>;
  stop(): Promise<void>;
}

/**
 * The local server's own sweeper: the scheduled Lambda's sweep (`sweepRegion`) every `everySeconds`,
 * one at a time, so that expired memories leave the embedded database and the journal says so
 * while the server runs. A failed sweep is logged (no content) and the next one tries again.
 */
export function startSweepTimer(
  container: Container,
  everySeconds: number,
  onSwept: (report: RegionSweepReport) => void = () => undefined,
): SweepTimer {
  let running: Promise<RegionSweepReport> | undefined;
  const sweepNow = (): Promise<RegionSweepReport> => {
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => sweepRegion(container));
    running = next;
    void next
      .then(onSwept, () => undefined)
      .finally(() => {
        if (running === next) running = undefined;
      });
    return next;
  };
  const tick = () => {
    if (running) return;
    sweepNow().catch((error: unknown) => logger.error('scheduled sweep failed', { error: loggable(error) }));
  };
  const timer = everySeconds > 0 ? setInterval(tick, everySeconds * 1000) : undefined;
  timer?.unref();
  return {
    sweepNow,
    stop: async () => {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
