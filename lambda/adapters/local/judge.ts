import type { JudgeOutcome } from '../../memory/model.js';
import type { Judge } from '../../ports/judge.js';

/**
 * The offline judge: the exact-restatement rule only, which the service applies before any judge
 * is asked. So whatever reaches this judge differs, and it says so: it never merges falsely.
 */
export class ExactOnlyJudge implements Judge {
  readonly name = 'local-exact-only';

  async compare(): Promise<JudgeOutcome> {
    return 'different';
  }
}
