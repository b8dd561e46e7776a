import { type Classified, redact } from '../provider-call.js';

/** Where an OpenAI-compatible server lives, and the optional bearer key it wants. */
export interface OpenAiEndpoint {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  /** Node's global fetch in production; injected so the adapters build no HTTP client of their own. */
  readonly fetch: typeof fetch;
}

/** One exchange with an OpenAI-compatible server went wrong; the retry policy sorts the subclasses. */
export class OpenAiHttpError extends Error {
  override name = 'OpenAiHttpError';
}

/** The server answered with an HTTP error status. The body's error message, redacted, is kept as detail. */
export class HttpStatusError extends OpenAiHttpError {
  override name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`HTTP ${status}`);
  }
}

/** The server answered 2xx with a body that is not JSON. */
export class MalformedBodyError extends OpenAiHttpError {
  override name = 'MalformedBodyError';
}

/** `{base}/{path}` whether or not the base ends in a slash. */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

function errorMessageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    return typeof message === 'string' ? message : '';
  } catch {
    return '';
  }
}

/** One POST of a JSON body; the whole exchange, body included, runs under `signal`. */
export async function postJson(endpoint: OpenAiEndpoint, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const response = await endpoint.fetch(endpointUrl(endpoint.baseUrl, path), {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  if (!response.ok) throw new HttpStatusError(response.status, redact(errorMessageOf(text), [endpoint.apiKey]));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new MalformedBodyError('the body is not JSON', { cause: error });
  }
}

/** 429 and 5xx are retried, as are failures to reach the server; other statuses and bad bodies are final. */
export function classifyHttpError(error: unknown): Classified {
  if (error instanceof HttpStatusError) {
    const code = `HTTP ${error.status}`;
    if (error.status === 429) return { reason: 'throttled', retryable: true, code, detail: error.detail };
    if (error.status >= 500) return { reason: 'server', retryable: true, code, detail: error.detail };
    if (error.status === 401 || error.status === 403)
      return { reason: 'credentials', retryable: false, code, detail: error.detail };
    return { reason: 'rejected', retryable: false, code, detail: error.detail };
  }
  if (error instanceof MalformedBodyError) return { reason: 'malformed', retryable: false, code: error.message };
  // fetch reports an unreachable server or a reset connection as a TypeError (by name: it may come from another realm).
  const e = error as { name?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const said = [e?.cause?.code, e?.cause?.message, e?.name].find((v): v is string => typeof v === 'string' && v !== '');
  return { reason: 'network', retryable: e?.name === 'TypeError', code: redact(said ?? 'unknown error') };
}
