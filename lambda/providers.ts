import { LocalEmbedder } from './adapters/local/embedder.js';
import { ExactOnlyJudge } from './adapters/local/judge.js';
import type { RuntimeConfig } from './config/env.js';
import { ConfigError } from './config/errors.js';
import type { Embedder } from './ports/embedder.js';
import type { Judge } from './ports/judge.js';

/** The provider half of the composition root: builds the configured embedder and judge. */
export function makeEmbedder(config: RuntimeConfig): Embedder {
  const embedder = config.embedder;
  if (embedder.provider === 'local') return new LocalEmbedder(embedder.dimensions);
  throw new ConfigError(`embedder provider ${embedder.provider} is not available in this build`);
}

export function makeJudge(config: RuntimeConfig): Judge {
  if (config.judge.provider === 'local') return new ExactOnlyJudge();
  throw new ConfigError(`judge provider ${config.judge.provider} is not available in this build`);
}
