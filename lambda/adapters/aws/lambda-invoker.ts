import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { Invocation, VersionInvoker } from '../../release/checks.js';

/**
 * Invokes a published version through the Lambda API, as API Gateway would through the alias: a
 * synchronous invocation whose `FunctionError` says the function failed (its payload is then the
 * runtime's `{errorType, errorMessage}`).
 */
export class LambdaVersionInvoker implements VersionInvoker {
  constructor(private readonly client: LambdaClient) {}

  async invoke(functionArn: string, event: unknown): Promise<Invocation> {
    const out = await this.client.send(
      new InvokeCommand({ FunctionName: functionArn, Payload: new TextEncoder().encode(JSON.stringify(event)) }),
    );
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : 'null';
    const payload: unknown = JSON.parse(text || 'null');
    if (!out.FunctionError) return { kind: 'answered', payload };
    const error = (payload ?? {}) as { errorType?: unknown; errorMessage?: unknown };
    return {
      kind: 'failed',
      errorType: typeof error.errorType === 'string' ? error.errorType : out.FunctionError,
      errorMessage: typeof error.errorMessage === 'string' ? error.errorMessage : '',
    };
  }
}
