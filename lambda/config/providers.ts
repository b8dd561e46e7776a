/**
 * Provider settings: which embedder and judge, where they are, and how hard to try. Parsed from the
 * settings env.ts reads; nothing here touches the environment itself.
 */
import type { Settings } from './settings.js';

export interface BedrockConfig {
  readonly region: string;
  /** A local stand-in speaking Bedrock's wire format (tests); the real service when absent. */
  readonly endpoint: string | undefined;
}

export interface OpenAiConfig {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
}

/** How a remote provider call is retried: at most `maxAttempts` attempts, all within `budgetMs`. */
export interface RetryConfig {
  readonly maxAttempts: number;
  readonly budgetMs: number;
}

export type EmbedderConfig =
  | { readonly provider: 'local'; readonly dimensions: number }
  | { readonly provider: 'sentence'; readonly dimensions: number }
  | {
      readonly provider: 'bedrock';
      readonly dimensions: number;
      readonly modelId: string;
      readonly bedrock: BedrockConfig;
      readonly timeoutMs: number;
      readonly retry: RetryConfig;
    }
  | {
      readonly provider: 'openai';
      readonly dimensions: number;
      readonly model: string;
      readonly openai: OpenAiConfig;
      readonly timeoutMs: number;
      readonly retry: RetryConfig;
    };

export type JudgeConfig =
  | { readonly provider: 'local' }
  | {
      readonly provider: 'bedrock';
      readonly modelId: string;
      readonly bedrock: BedrockConfig;
      readonly timeoutMs: number;
      readonly retry: RetryConfig;
    }
  | {
      readonly provider: 'openai';
      readonly model: string;
      readonly openai: OpenAiConfig;
      readonly timeoutMs: number;
      readonly retry: RetryConfig;
    };

/**
 * Titan V2 accepts 256, 512 or 1024; the local embedder defaults to 256 to keep the laptop database
 * small; the sentence encoder makes 512 and nothing else.
 */
const DEFAULT_DIMENSIONS = { local: 256, sentence: 512, bedrock: 1024, openai: 1536 } as const;

/** The geography inference profile of Nova Micro for an AWS region: processing stays in that geography. */
export function novaMicroProfile(awsRegion: string): string {
  const geography = awsRegion.startsWith('eu-') ? 'eu' : awsRegion.startsWith('ap-') ? 'apac' : 'us';
  return `${geography}.amazon.nova-micro-v1:0`;
}

export function readProviders(s: Settings): { embedder: EmbedderConfig; judge: JudgeConfig } {
  const embedderKind = s.choice('NAABA_EMBEDDER', ['local', 'sentence', 'bedrock', 'openai'], 'local');
  const judgeKind = s.choice('NAABA_JUDGE', ['local', 'bedrock', 'openai'], 'local');
  const usesBedrock = embedderKind === 'bedrock' || judgeKind === 'bedrock';
  const usesOpenAi = embedderKind === 'openai' || judgeKind === 'openai';
  const awsRegion = usesBedrock
    ? (s.string('NAABA_BEDROCK_REGION') ?? s.required('AWS_REGION', 'for Bedrock (or NAABA_BEDROCK_REGION)'))
    : '';
  const bedrock: BedrockConfig = { region: awsRegion, endpoint: usesBedrock ? s.string('NAABA_BEDROCK_ENDPOINT') : undefined };
  const openai: OpenAiConfig = usesOpenAi
    ? {
        baseUrl: s.required('NAABA_OPENAI_BASE_URL', 'for OpenAI-compatible providers'),
        apiKey: s.string('NAABA_OPENAI_API_KEY', undefined, { secret: true }),
      }
    : { baseUrl: '', apiKey: undefined };
  const dimensions = s.integer('NAABA_EMBEDDING_DIMENSIONS', DEFAULT_DIMENSIONS[embedderKind], 8, 4096);
  const embedTimeoutMs = s.integer('NAABA_EMBEDDER_TIMEOUT_MS', 5000, 100, 60_000);
  const judgeTimeoutMs = s.integer('NAABA_JUDGE_TIMEOUT_MS', 5000, 100, 60_000);
  // Read only when a remote provider is configured, so the offline report stays short.
  const maxAttempts = usesBedrock || usesOpenAi ? s.integer('NAABA_PROVIDER_MAX_ATTEMPTS', 3, 1, 10) : 1;
  // Budgets leave room for the database inside API Gateway's 29 s: embed 10 s + judge 8 s at most.
  const embedRetry: RetryConfig = {
    maxAttempts,
    budgetMs:
      embedderKind === 'local' || embedderKind === 'sentence' ? 0 : s.integer('NAABA_EMBEDDER_BUDGET_MS', 10_000, 100, 120_000),
  };
  const judgeRetry: RetryConfig = {
    maxAttempts,
    budgetMs: judgeKind === 'local' ? 0 : s.integer('NAABA_JUDGE_BUDGET_MS', 8000, 100, 120_000),
  };
  if (embedderKind === 'bedrock' && ![256, 512, 1024].includes(dimensions)) {
    s.problems.push(`NAABA_EMBEDDING_DIMENSIONS=${dimensions}: Titan Text Embeddings V2 offers 256, 512 or 1024`);
  }
  if (embedderKind === 'sentence' && dimensions !== DEFAULT_DIMENSIONS.sentence) {
    s.problems.push(`NAABA_EMBEDDING_DIMENSIONS=${dimensions}: the sentence encoder makes ${DEFAULT_DIMENSIONS.sentence}`);
  }
  const embedder: EmbedderConfig =
    embedderKind === 'local' || embedderKind === 'sentence'
      ? { provider: embedderKind, dimensions }
      : embedderKind === 'bedrock'
        ? {
            provider: 'bedrock',
            dimensions,
            modelId: s.string('NAABA_BEDROCK_EMBEDDING_MODEL', 'amazon.titan-embed-text-v2:0'),
            bedrock,
            timeoutMs: embedTimeoutMs,
            retry: embedRetry,
          }
        : {
            provider: 'openai',
            dimensions,
            model: s.required('NAABA_OPENAI_EMBEDDING_MODEL', 'for NAABA_EMBEDDER=openai'),
            openai,
            timeoutMs: embedTimeoutMs,
            retry: embedRetry,
          };
  const judge: JudgeConfig =
    judgeKind === 'local'
      ? { provider: 'local' }
      : judgeKind === 'bedrock'
        ? {
            provider: 'bedrock',
            modelId: s.string('NAABA_BEDROCK_JUDGE_MODEL', novaMicroProfile(awsRegion)),
            bedrock,
            timeoutMs: judgeTimeoutMs,
            retry: judgeRetry,
          }
        : {
            provider: 'openai',
            model: s.required('NAABA_OPENAI_JUDGE_MODEL', 'for NAABA_JUDGE=openai'),
            openai,
            timeoutMs: judgeTimeoutMs,
            retry: judgeRetry,
          };
  return { embedder, judge };
}
