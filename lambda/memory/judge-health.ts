import type { JudgeOutcome } from './model.js';

export interface JudgeStatus {
  readonly provider: string;
  /** Whether the judge's last call in this process gave a verdict; null before the first call. */
  readonly lastCallOk: boolean | null;
  readonly lastCallAt: Date | null;
}

/** Remembers how the judge's last call went, for curation_state. Per process: Lambda keeps no shared state. */
export class JudgeHealth {
  private lastOk: boolean | null = null;
  private lastAt: Date | null = null;

  constructor(private readonly provider: string) {}

  record(outcome: JudgeOutcome, at: Date): void {
    this.lastOk = outcome !== 'unavailable';
    this.lastAt = at;
  }

  snapshot(): JudgeStatus {
    return { provider: this.provider, lastCallOk: this.lastOk, lastCallAt: this.lastAt };
  }
}
