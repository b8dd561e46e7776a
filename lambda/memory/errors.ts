/**
 * Errors of the memory domain. Only errors with `expose` set may reach a caller verbatim;
 * anything else becomes a generic message with a correlation id.
 */
export class MemoryError extends Error {
  override name = 'MemoryError';
  /** True when the message is written for the caller and safe to show. */
  readonly expose: boolean;
  /** True when the same call may succeed if simply retried. */
  readonly retryable: boolean;

  constructor(message: string, options?: ErrorOptions & { expose?: boolean; retryable?: boolean }) {
    super(message, options);
    this.expose = options?.expose ?? true;
    this.retryable = options?.retryable ?? false;
  }
}

/** The caller's input breaks a documented limit; nothing was written. */
export class InvalidInputError extends MemoryError {
  override name = 'InvalidInputError';
}

/** A kind that the curation rules do not define. */
export class UnknownKindError extends InvalidInputError {
  override name = 'UnknownKindError';
  constructor(kind: string, valid: readonly string[]) {
    super(`unknown kind "${kind}"; valid kinds: ${valid.join(', ')}`);
  }
}

/** The per-user pin cap would be exceeded; nothing was written. */
export class PinLimitError extends MemoryError {
  override name = 'PinLimitError';
  constructor(limit: number) {
    super(`pin limit reached (${limit} pinned memories); unpin or forget one first. Nothing was written.`);
  }
}

/** The kind is at its ceiling and every memory in it is pinned, so nothing can be evicted. */
export class KindFullError extends MemoryError {
  override name = 'KindFullError';
  constructor(kind: string, ceiling: number) {
    super(
      `kind "${kind}" is at its ceiling of ${ceiling} and every memory in it is pinned; forget one first. Nothing was written.`,
    );
  }
}

/** The embedding provider failed or answered out of contract; nothing was stored. */
export class EmbedderError extends MemoryError {
  override name = 'EmbedderError';
}

/** The embedder's dimension does not match the schema's; nothing was stored. */
export class EmbeddingDimensionError extends EmbedderError {
  override name = 'EmbeddingDimensionError';
  constructor(expected: number, actual: number, where: string) {
    super(`embedding dimension mismatch ${where}: expected ${expected}, got ${actual}. Nothing was stored.`);
  }
}

/** The database stayed busy past the retry bound; the call changed nothing and may be retried. */
export class StoreBusyError extends MemoryError {
  override name = 'StoreBusyError';
  constructor(attempts: number, options?: ErrorOptions) {
    super(`the database is busy (gave up after ${attempts} attempts); nothing was changed, retry the call`, {
      ...options,
      retryable: true,
    });
  }
}

/**
 * One request's answers would pass the bytes a request may return (REQUEST_LIMITS.responseBytes):
 * the call's answer is withheld and the caller told what to lower.
 */
export class ResponseTooLargeError extends MemoryError {
  override name = 'ResponseTooLargeError';
  constructor(tool: string, bytes: number, cap: number) {
    super(
      `the ${tool} answer (${bytes} bytes) would take this request's answers past the ${cap} bytes one request may return; lower limit, or send fewer calls per batch`,
    );
  }
}
