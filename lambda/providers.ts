import type { BedrockRuntimeClient, BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { LocalEmbedder } from './adapters/local/embedder.js';
import { ExactOnlyJudge } from './adapters/local/judge.js';
import type { OpenAiEndpoint } from './adapters/openai/http.js';
import type { CallPolicy } from './adapters/provider-call.js';
import type { BedrockConfig, OpenAiConfig, RetryConfig, RuntimeConfig } from './config/env.js';
import type { Embedder } from './ports/embedder.js';
import type { Judge } from './ports/judge.js';
import { tracing } from './observability.js';

/** An AWS SDK client with an X-Ray subsegment per call where the handler traces; as it is elsewhere. */
async function traced<T>(client: T): Promise<T> {
  return (await tracing())?.captureClient(client) ?? client;
}

/** What a test or an evaluation may supply instead of the environment's: static credentials, another fetch. */
export interface ProviderOverrides {
  readonly credentials?: BedrockRuntimeClientConfig['credentials'];
  readonly fetch?: typeof fetch;
}

/**
 * A Bedrock runtime client with the SDK's own retries off (one attempt per `send`): the adapters'
 * retry policy is then the only one, bounded in attempts and time. Credentials come from the
 * standard AWS chain (the Lambda role in production) unless overridden.
 */
async function bedrockClient(bedrock: BedrockConfig, overrides: ProviderOverrides): Promise<BedrockRuntimeClient> {
  // Loaded on first use: the authorizer and the sweeper never pay for the Bedrock SDK.
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  return traced(
    new BedrockRuntimeClient({
      region: bedrock.region,
      maxAttempts: 1,
      ...(bedrock.endpoint ? { endpoint: bedrock.endpoint } : {}),
      ...(overrides.credentials ? { credentials: overrides.credentials } : {}),
    }),
  );
}

/**
 * The Secrets Manager client the database secret is read with: region and credentials from the
 * Lambda environment, traced where the handler traces. Each attempt is bounded (a second to
 * connect, two to answer) and there are two at most, so the SDK gives up well inside the secret
 * cache's own deadline (issue 48), which ends the read whatever the SDK does.
 */
export async function secretsManagerClient(): Promise<SecretsManagerClient> {
  // Loaded on first use, like the Bedrock client: /healthz never pays for it.
  const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  return traced(new SecretsManagerClient({ maxAttempts: 2, requestHandler: SECRETS_REQUEST_TIMEOUTS }));
}

/** Per attempt: connecting, then the whole answer (milliseconds). */
export const SECRETS_REQUEST_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000 } as const;

function openAiEndpoint(openai: OpenAiConfig, overrides: ProviderOverrides): OpenAiEndpoint {
  return { baseUrl: openai.baseUrl, apiKey: openai.apiKey, fetch: overrides.fetch ?? globalThis.fetch };
}

const policyOf = (timeoutMs: number, retry: RetryConfig): CallPolicy => ({ timeoutMs, ...retry });

/** The provider half of the composition root: builds the configured embedder (remote adapters load on demand). */
export async function makeEmbedder(config: RuntimeConfig, overrides: ProviderOverrides = {}): Promise<Embedder> {
  const e = config.embedder;
  switch (e.provider) {
    case 'local':
      return new LocalEmbedder(e.dimensions);
    case 'sentence': {
      // Loaded on demand and left out of Lambda bundles (lib/bundling.ts): only a laptop runs it.
      const { SentenceEmbedder } = await import('./adapters/local/sentence-embedder.js');
      const embedder = new SentenceEmbedder();
      await embedder.ready();
      return embedder;
    }
    case 'bedrock': {
      const { TitanEmbedder } = await import('./adapters/bedrock/titan-embedder.js');
      return new TitanEmbedder(await bedrockClient(e.bedrock, overrides), {
        modelId: e.modelId,
        dimensions: e.dimensions,
        policy: policyOf(e.timeoutMs, e.retry),
      });
    }
    case 'openai': {
      const { OpenAiEmbedder } = await import('./adapters/openai/embedder.js');
      return new OpenAiEmbedder(openAiEndpoint(e.openai, overrides), {
        model: e.model,
        dimensions: e.dimensions,
        policy: policyOf(e.timeoutMs, e.retry),
      });
    }
  }
}

/** The provider half of the composition root: builds the configured judge (remote adapters load on demand). */
export async function makeJudge(config: RuntimeConfig, overrides: ProviderOverrides = {}): Promise<Judge> {
  const j = config.judge;
  switch (j.provider) {
    case 'local':
      return new ExactOnlyJudge();
    case 'bedrock': {
      const { NovaJudge } = await import('./adapters/bedrock/nova-judge.js');
      const client = await bedrockClient(j.bedrock, overrides);
      return new NovaJudge(client, { modelId: j.modelId, policy: policyOf(j.timeoutMs, j.retry) });
    }
    case 'openai': {
      const { OpenAiJudge } = await import('./adapters/openai/judge.js');
      return new OpenAiJudge(openAiEndpoint(j.openai, overrides), { model: j.model, policy: policyOf(j.timeoutMs, j.retry) });
    }
  }
}
