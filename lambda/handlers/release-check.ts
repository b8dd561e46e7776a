import middy from '@middy/core';
import { ConfigError } from '../config/errors.js';
import { loggable, logger, observed } from '../observability.js';
import { bake } from '../release/bake.js';
import { releaseChecks } from '../release/checks.js';
import { type HookEvent, type ReleaseCheckParts, releaseCheckParts } from '../release/composition.js';

/** How often the bake looks at the alarms: CloudWatch evaluates them once a minute. */
const BAKE_EVERY_MS = 30_000;

/** Runs the checks against the new versions; logs each one (never the key). */
async function checksPass(parts: ReleaseCheckParts): Promise<boolean> {
  const results = await releaseChecks(parts.invoker, parts.config, await parts.verificationKey());
  for (const r of results) (r.ok ? logger.info : logger.error).call(logger, 'release check', { ...r });
  return results.every((r) => r.ok);
}

/** After traffic: the checks again, then the bake on the alarms of the deployment group being deployed. */
async function bakes(parts: ReleaseCheckParts, event: HookEvent): Promise<boolean> {
  const group = await parts.hooks.groupOf(event.DeploymentId);
  const alarms = parts.config.bakeAlarms.find((g) => g.group === group)?.alarms;
  if (!alarms) {
    logger.error('release bake: no alarms known for this deployment group', { group });
    return false;
  }
  if (parts.config.bakeMinutes === 0) return true;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const outcome = await bake(alarms, parts.alarms, {
    forMs: parts.config.bakeMinutes * 60_000,
    everyMs: BAKE_EVERY_MS,
    now: Date.now,
    sleep,
  });
  (outcome.ok ? logger.info : logger.error).call(logger, 'release bake', { group, ...outcome });
  return outcome.ok;
}

/** Reports the verdict to CodeDeploy: a check that threw is a failed release, never a silent one. */
function hook(
  phase: 'before traffic' | 'after traffic',
  verdict: (parts: ReleaseCheckParts, event: HookEvent) => Promise<boolean>,
) {
  return async (event: HookEvent): Promise<void> => {
    const parts = releaseCheckParts();
    const ok = await verdict(parts, event).catch((error: unknown) => {
      // A settings problem is described by naaba's own message (names, never values); anything else by name and code.
      const reason = error instanceof ConfigError ? { reason: error.message } : {};
      logger.error('release check could not run', { phase, error: loggable(error), ...reason });
      return false;
    });
    logger.info('release check verdict', { phase, deploymentId: event.DeploymentId, ok });
    await parts.hooks.report(event, ok ? 'Succeeded' : 'Failed');
  };
}

/** CodeDeploy's BeforeAllowTraffic hook (decision 0091). */
export const beforeTraffic = middy(hook('before traffic', (parts) => checksPass(parts))).use(observed());

/** CodeDeploy's AfterAllowTraffic hook: the checks, then the bake (decision 0091). */
export const afterTraffic = middy(
  hook('after traffic', async (parts, event) => (await checksPass(parts)) && (await bakes(parts, event))),
).use(observed());
