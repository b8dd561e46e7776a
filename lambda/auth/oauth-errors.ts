import type { SecurityEventName } from './security-events.js';

/** The security event a refusal stands for, recorded where the refusal is answered (decision 0065). */
export interface RefusalEvent {
  readonly name: SecurityEventName;
  readonly reason: string;
  /** The grant the refusal ended, if it ended one. */
  readonly keyId?: string | undefined;
  readonly clientId?: string | undefined;
}

/**
 * An OAuth error as RFC 6749 §5.2 / RFC 7591 §3.2.2 name them: safe to show, since every message
 * is ours and names no secret. `status` is the HTTP status the endpoint answers with.
 */
export class OAuthError extends Error {
  override name = 'OAuthError';

  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly event?: RefusalEvent,
  ) {
    super(message);
  }
}
