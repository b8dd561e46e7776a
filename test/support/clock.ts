import type { Clock } from '../../lambda/ports/clock.js';

/** A clock that moves only when a test says so. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = start;
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current += seconds * 1000;
  }
}
