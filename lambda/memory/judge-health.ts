import type { JudgeOutcome } from './model.js';

export interface JudgeStatus {
  readonly provider: string;
  /** Whether the judge's last call in this process gave a verdict; null before the first call. */
  readonly lastCallOk: boolean | null;
  readonly lastCallAt: Date | null;
}

/** Judge calls since the last {@link JudgeHealth.takeCounts}, and how many of them got no verdict. */
export interface JudgeCounts {
  readonly asked: number;
  readonly unavailable: number;
}

/**
 * Remembers how the judge's last call went, for curation_state, and counts calls for the
 * judge-unavailable rate. Per process: Lambda keeps no shared state.
 */
export class JudgeHealth {
  private lastOk: boolean | null = null;
  private lastAt: Date | null = null;
  private asked = 0;
  private unavailable = 0;

  constructor(private readonly provider: string) {}

  record(outcome: JudgeOutcome, at: Date): void {
    this.lastOk = outcome !== 'unavailable';
    this.lastAt = at;
    this.asked += 1;
    if (!this.lastOk) this.unavailable += 1;
  }

  /** The counts since the previous call, which starts them again (a Lambda container runs one invocation at a time). */
  takeCounts(): JudgeCounts {
    const counts = { asked: this.asked, unavailable: this.unavailable };
    this.asked = 0;
    this.unavailable = 0;
    return counts;
  }

  snapshot(): JudgeStatus {
    return { provider: this.provider, lastCallOk: this.lastOk, lastCallAt: this.lastAt };
  }
}
