import type { Classified } from '../provider-call.js';
import { redact } from '../provider-call.js';

/** Bedrock's errors that may succeed if simply tried again a little later. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelNotReadyException',
]);

/** Socket-level failures of a connection that was fine a moment ago. */
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'ERR_HTTP2_STREAM_ERROR']);

interface SdkErrorShape {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * Sorts an error from the Bedrock runtime client into retry or fail. Throttling and 5xx are
 * retried; a refused request (validation, access, unknown model) and an unreadable answer are not.
 */
export function classifyBedrockError(error: unknown): Classified {
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorShape;
  const name = e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const detail = redact(e.message ?? String(error));
  if (name === 'CredentialsProviderError') return { reason: 'credentials', retryable: false, code: name, detail };
  if (name === 'ThrottlingException' || status === 429) return { reason: 'throttled', retryable: true, code: name, detail };
  if (RETRYABLE.has(name) || (status !== undefined && status >= 500)) {
    return { reason: 'server', retryable: true, code: status ? `${name}, HTTP ${status}` : name, detail };
  }
  if (e.code && NETWORK.has(e.code)) return { reason: 'network', retryable: true, code: e.code, detail };
  if (status !== undefined && status >= 400)
    return { reason: 'rejected', retryable: false, code: `${name}, HTTP ${status}`, detail };
  return { reason: 'malformed', retryable: false, code: name, detail };
}
