import type { JudgeOutcome } from '../memory/model.js';

/** Says whether two memories make the same claim. Implementations: local (exact rule only), Bedrock Nova, OpenAI-compatible. */
export interface Judge {
  readonly name: string;
  /**
   * Compares an existing memory with a new one. Must resolve to `unavailable` (never throw,
   * never guess) on timeout, error or an answer that is not exactly a verdict.
   */
  compare(existing: string, incoming: string): Promise<JudgeOutcome>;
}
