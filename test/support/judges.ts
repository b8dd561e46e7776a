import type { JudgeOutcome } from '../../lambda/memory/model.js';
import type { Judge } from '../../lambda/ports/judge.js';

/** A judge whose answers a test writes: a function of the two texts, with every call recorded. */
export class ScriptedJudge implements Judge {
  readonly name = 'scripted';
  readonly calls: [string, string][] = [];

  constructor(private readonly answer: (existing: string, incoming: string) => JudgeOutcome | Promise<JudgeOutcome>) {}

  async compare(existing: string, incoming: string): Promise<JudgeOutcome> {
    this.calls.push([existing, incoming]);
    return this.answer(existing, incoming);
  }
}

/** A judge that is down: every call fails. */
export class FailingJudge implements Judge {
  readonly name = 'failing';
  calls = 0;

  async compare(): Promise<JudgeOutcome> {
    this.calls += 1;
    throw new Error('judge endpoint unreachable');
  }
}
