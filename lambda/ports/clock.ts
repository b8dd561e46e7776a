/** The current time, injected so that usefulness, expiry and retention are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
