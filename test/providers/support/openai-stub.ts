import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Reply, replyBody, Script } from './scripted.js';

/** A stand-in OpenAI-compatible server on 127.0.0.1: `POST /v1/embeddings` and `/v1/chat/completions`. */
export class OpenAiStub {
  readonly script = new Script();
  private readonly server: http.Server;

  private constructor() {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const reply = this.script.next({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if ('hang' in reply) return;
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        response.end(replyBody(reply));
      });
    });
  }

  static async start(): Promise<OpenAiStub> {
    const stub = new OpenAiStub();
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  /** The base URL a client is configured with, as for OpenAI or Ollama. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function embeddingsAnswer(embedding: readonly number[]): Reply {
  return { status: 200, json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding }], model: 'stand-in' } };
}

export function chatAnswer(content: string, finishReason = 'stop'): Reply {
  return {
    status: 200,
    json: {
      id: 'chatcmpl-stand-in',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    },
  };
}

export function openAiError(status: number, message: string): Reply {
  return { status, json: { error: { message, type: 'stand_in_error' } } };
}
