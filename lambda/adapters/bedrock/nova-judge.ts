import { type BedrockRuntimeClient, ConverseCommand, type ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
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
import { classifyBedrockError } from './classify.js';

export interface NovaJudgeSettings {
  /** A model id or, as most regions need for Nova, a geography inference profile such as `eu.amazon.nova-micro-v1:0`. */
  readonly modelId: string;
  readonly policy: CallPolicy;
}

const CALL = 'Bedrock Converse (judge)';

/** The one text block of a finished assistant turn, or undefined when the answer has any other shape. */
function answerText(output: ConverseCommandOutput): string | undefined {
  const content = output.output?.message?.content;
  if (content?.length !== 1) return undefined;
  const text = content[0]?.text;
  return typeof text === 'string' ? text : undefined;
}

/**
 * The production judge of DESIGN §6: Nova Micro over the Converse API, deterministic settings,
 * memories as delimited data, strict verdict. `compare` never throws; `verdict` says why it failed.
 */
export class NovaJudge implements ExplainingJudge {
  readonly name: string;

  constructor(
    private readonly client: BedrockRuntimeClient,
    private readonly settings: NovaJudgeSettings,
    private readonly tools: CallTools = realCallTools,
  ) {
    this.name = `bedrock:${settings.modelId}`;
  }

  compare(existing: string, incoming: string): Promise<JudgeOutcome> {
    return outcomeOf(this, existing, incoming);
  }

  async verdict(existing: string, incoming: string): Promise<Verdict> {
    const output = await callWithRetry(
      CALL,
      this.settings.policy,
      (abortSignal) =>
        this.client.send(
          new ConverseCommand({
            modelId: this.settings.modelId,
            system: [{ text: JUDGE_SYSTEM_PROMPT }],
            messages: [{ role: 'user', content: [{ text: judgeUserMessage(existing, incoming) }] }],
            inferenceConfig: { maxTokens: VERDICT_MAX_TOKENS, temperature: 0 },
          }),
          { abortSignal },
        ),
      classifyBedrockError,
      this.tools,
    );
    return verdictOf(CALL, answerText(output), output.stopReason === 'end_turn');
  }
}
