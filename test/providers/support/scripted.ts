export interface Answer {
  readonly status: number;
  readonly json?: unknown;
  readonly text?: string;
  readonly headers?: Record<string, string>;
}

/** What a stand-in provider does with one request: answer it, or never answer at all. */
export type Reply = Answer | { readonly hang: true };

/** One request as the stand-in received it. */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/**
 * The replies a test scripts, served in order; once they run out, `otherwise` answers every
 * further request, so a test can say "fail until the client gives up".
 */
export class Script {
  readonly received: Received[] = [];
  private queue: Reply[] = [];
  private otherwise: Reply = { status: 500, json: { message: 'no reply scripted' } };
  /** When set, the reply to every Converse call (the judge), whatever the script says for the others. */
  converse: Reply | undefined;

  /** Replaces the script: these replies in order, then `otherwise` forever. */
  set(replies: readonly Reply[], otherwise?: Reply): void {
    this.queue = [...replies];
    if (otherwise) this.otherwise = otherwise;
    this.received.length = 0;
  }

  next(request: Received): Reply {
    this.received.push(request);
    if (this.converse && request.path.endsWith('/converse')) return this.converse;
    return this.queue.shift() ?? this.otherwise;
  }

  /** The body of the nth request, parsed. */
  json<T>(index: number): T {
    const request = this.received[index];
    if (!request) throw new Error(`no request #${index}; received ${this.received.length}`);
    return JSON.parse(request.body) as T;
  }
}

export function replyBody(reply: Answer): string {
  return reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
}
