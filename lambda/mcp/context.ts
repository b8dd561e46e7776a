import type { CurationService } from '../memory/curation/curation-service.js';
import type { ClientInfo, Principal } from '../memory/model.js';
import type { RequestLog } from '../observability.js';

/**
 * What one request's answers may still add up to, in bytes of their JSON. Shared by the calls of
 * a batch; JavaScript runs one call's accounting at a time, so the sum can never overshoot.
 */
export class ResponseBudget {
  private remaining: number;

  constructor(readonly cap: number) {
    this.remaining = cap;
  }

  /** Reserves `bytes` if they fit; false (and nothing reserved) if they do not. */
  take(bytes: number): boolean {
    if (bytes > this.remaining) return false;
    this.remaining -= bytes;
    return true;
  }
}

/** Everything a tool call may use. The principal comes from the authorizer, never from tool input. */
export interface ToolContext {
  readonly memory: CurationService;
  readonly principal: Principal;
  readonly client: ClientInfo;
  readonly log: RequestLog;
  /** Bytes the answers of this request may still take (REQUEST_LIMITS.responseBytes in all). */
  readonly budget: ResponseBudget;
}
