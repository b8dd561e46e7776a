import type { MemoryService } from '../memory/service.js';
import type { ClientInfo, Principal } from '../memory/model.js';

/** The structured log a tool writes to: ids, names and timings only, never content or tokens. */
export interface ToolLog {
  info(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/** Everything a tool call may use. The principal comes from the authorizer, never from tool input. */
export interface ToolContext {
  readonly memory: MemoryService;
  readonly principal: Principal;
  readonly client: ClientInfo;
  readonly log: ToolLog;
}
