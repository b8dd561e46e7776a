import type { JudgeOutcome, Verdict } from '../../memory/model.js';
import {
  type ExplainingJudge,
  JUDGE_SYSTEM_PROMPT,
  judgeUserMessage,
  outcomeOf,
  VERDICT_MAX_TOKENS,
  verdictOf,
} from '../judge-protocol.js';
import { type CallPolicy, type CallTools, callWithRetry, realCallTools } from '../provider-call.js';
import { classifyHttpError, type OpenAiEndpoint, postJson } from './http.js';

export interface OpenAiJudgeSettings {
  readonly model: string;
  readonly policy: CallPolicy;
}

const CALL = 'OpenAI-compatible chat completion (judge)';

interface ChatAnswer {
  readonly choices?: readonly { readonly finish_reason?: unknown; readonly message?: { readonly content?: unknown } }[];
}

/** The judge over any OpenAI-compatible chat model (`POST {base}/chat/completions`), with the same protocol as Nova. */
export class OpenAiJudge implements ExplainingJudge {
  readonly name: string;

  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly settings: OpenAiJudgeSettings,
    private readonly tools: CallTools = realCallTools,
  ) {
    this.name = `openai:${settings.model}`;
  }

  compare(existing: string, incoming: string): Promise<JudgeOutcome> {
    return outcomeOf(this, existing, incoming);
  }

  async verdict(existing: string, incoming: string): Promise<Verdict> {
    const request = {
      model: this.settings.model,
      messages: [
        { role: 'system', content: JUDGE_SYSTEM_PROMPT },
        { role: 'user', content: judgeUserMessage(existing, incoming) },
      ],
      temperature: 0,
      max_tokens: VERDICT_MAX_TOKENS,
      n: 1,
      stream: false,
    };
    const answer = (await callWithRetry(
      CALL,
      this.settings.policy,
      (signal) => postJson(this.endpoint, 'chat/completions', request, signal),
      classifyHttpError,
      this.tools,
    )) as ChatAnswer | null;
    const choices = answer?.choices;
    const only = Array.isArray(choices) && choices.length === 1 ? choices[0] : undefined;
    const content = only?.message?.content;
    return verdictOf(CALL, typeof content === 'string' ? content : undefined, only?.finish_reason === 'stop');
  }
}
