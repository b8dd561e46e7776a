import { isExplaining } from '../../lambda/adapters/judge-protocol.js';
import type { JudgeConfig } from '../../lambda/config/env.js';
import { fingerprint } from '../../lambda/memory/canonical.js';
import type { JudgeOutcome } from '../../lambda/memory/model.js';
import type { Judge } from '../../lambda/ports/judge.js';

/** What the pipeline said, and whether the exact-restatement rule said it without asking the judge. */
export interface Judged {
  readonly outcome: JudgeOutcome;
  readonly exact: boolean;
}

/**
 * The decision MemoryService.remember makes for one incoming memory against its nearest stored
 * one: equal fingerprints are a restatement without a model call; otherwise the judge decides,
 * and a throw counts as unavailable.
 */
export async function judgeLikeTheService(judge: Judge, stored: string, incoming: string): Promise<Judged> {
  if (fingerprint(stored) === fingerprint(incoming)) return { outcome: 'same', exact: true };
  try {
    return { outcome: await judge.compare(stored, incoming), exact: false };
  } catch {
    return { outcome: 'unavailable', exact: false };
  }
}

/** What a provider needs before an evaluation can run, said once instead of thousands of `unavailable`s. */
function needs(config: JudgeConfig): string {
  switch (config.provider) {
    case 'bedrock':
      return `AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK) allowed to call ${config.modelId} in ${config.bedrock.region}`;
    case 'openai':
      return `a reachable server at NAABA_OPENAI_BASE_URL (${config.openai.baseUrl}) serving NAABA_OPENAI_JUDGE_MODEL (${config.model}), and NAABA_OPENAI_API_KEY if it wants one`;
    case 'local':
      return 'nothing';
  }
}

/** One call with fixed, content-free texts: fails with a clear message when the judge cannot answer at all (no credentials, no server). */
export async function preflight(judge: Judge, config: JudgeConfig): Promise<void> {
  if (!isExplaining(judge)) return;
  try {
    await judge.verdict('The preflight says the sky is blue.', 'The preflight says the sky is green.');
  } catch (error) {
    const detail = (error as { detail?: unknown }).detail;
    throw new Error(
      `the ${config.provider} judge cannot answer: ${(error as Error).message}${typeof detail === 'string' && detail ? ` (${detail})` : ''}.\n` +
        `It needs ${needs(config)}. Try \`npx naaba check --probe\`.`,
    );
  }
}
