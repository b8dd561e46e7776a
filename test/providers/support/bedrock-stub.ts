import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { type Reply, replyBody, Script } from './scripted.js';

/**
 * A stand-in for the Bedrock runtime on 127.0.0.1, speaking its wire format over cleartext HTTP/2
 * (the SDK's Bedrock client uses its HTTP/2 handler): `POST /model/{modelId}/invoke` and
 * `/converse`, errors with `x-amzn-errortype` and a JSON `message`.
 */
export class BedrockStub {
  readonly script = new Script();
  private readonly server = http2.createServer();
  private readonly sessions = new Set<http2.ServerHttp2Session>();

  private constructor() {
    this.server.on('session', (session) => {
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
    });
    this.server.on('stream', (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const reply = this.script.next({
          method: String(headers[':method']),
          path: String(headers[':path']),
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if ('hang' in reply) return;
        if (stream.destroyed) return;
        stream.respond({ ':status': reply.status, 'content-type': 'application/json', ...reply.headers });
        stream.end(replyBody(reply));
      });
      stream.on('error', () => undefined);
    });
  }

  static async start(): Promise<BedrockStub> {
    const stub = new BedrockStub();
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An error as Bedrock sends it. */
export function bedrockError(status: number, type: string, message = `${type} from the stand-in`): Reply {
  return {
    status,
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
    json: { message },
  };
}

/** A Titan V2 InvokeModel answer. */
export function titanAnswer(embedding: readonly number[]): Reply {
  return { status: 200, json: { embedding, inputTextTokenCount: 4 } };
}

/** A Converse answer with one text block. */
export function converseAnswer(text: string, stopReason = 'end_turn'): Reply {
  return {
    status: 200,
    json: {
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason,
      usage: { inputTokens: 120, outputTokens: 1, totalTokens: 121 },
      metrics: { latencyMs: 42 },
    },
  };
}

/** Static dummy credentials: the SDK signs with them; the stand-in does not check. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSTANDIN000000000', secretAccessKey: 'stand-in-secret' };
