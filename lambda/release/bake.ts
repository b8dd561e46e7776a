/** Reads the states of alarms by name (`OK`, `ALARM`, `INSUFFICIENT_DATA`); an alarm it cannot find is absent. */
export interface AlarmStates {
  states(names: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

export interface BakeOptions {
  /** How long to watch, in milliseconds. */
  readonly forMs: number;
  /** How often to look. */
  readonly everyMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

export interface BakeOutcome {
  readonly ok: boolean;
  /** Alarms seen in ALARM, or missing (a missing alarm judges nothing, which is not a pass). */
  readonly firing: readonly string[];
  readonly looks: number;
}

/**
 * The bake (decision 0091): after all traffic has moved to a new version, its alarms are watched
 * for a while, and the first one in ALARM ends the bake as a failure, which fails the deployment
 * and moves the alias back. CodeDeploy also watches them while the hook runs; this does not rely
 * on it. Watches at least once, even for a bake of zero minutes when alarms are given.
 */
export async function bake(alarms: readonly string[], reader: AlarmStates, options: BakeOptions): Promise<BakeOutcome> {
  const until = options.now() + options.forMs;
  let looks = 0;
  for (;;) {
    const states = await reader.states(alarms);
    looks += 1;
    const firing = alarms.filter((name) => states.get(name) === undefined || states.get(name) === 'ALARM');
    if (firing.length > 0) return { ok: false, firing, looks };
    const left = until - options.now();
    if (left <= 0) return { ok: true, firing: [], looks };
    await options.sleep(Math.min(options.everyMs, left));
  }
}
