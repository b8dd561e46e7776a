import { createServer, type Server } from 'node:http';

/**
 * A local HTTP endpoint the real AWS SDK clients are pointed at (`AWS_ENDPOINT_URL_<SERVICE>`):
 * it records every request and answers with what `answer` returns. JSON-protocol services
 * (Secrets Manager, CodeDeploy, CloudWatch) name the operation in `X-Amz-Target`; REST ones
 * (Lambda's Invoke) in the path.
 */
export interface StandInRequest {
  readonly method: string;
  readonly path: string;
  /** The operation of a JSON-protocol call (`CodeDeploy_20141006.GetDeployment`), else undefined. */
  readonly target: string | undefined;
  readonly body: string;
}

export interface StandInAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

export interface AwsStandIn {
  readonly url: string;
  readonly requests: StandInRequest[];
  close(): Promise<void>;
}

export async function startAwsStandIn(
  answer: (request: StandInRequest) => Promise<StandInAnswer> | StandInAnswer,
): Promise<AwsStandIn> {
  const requests: StandInRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    incoming.on('end', () => {
      const target = incoming.headers['x-amz-target'];
      const request = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        target: typeof target === 'string' ? target : undefined,
        body,
      };
      requests.push(request);
      Promise.resolve(answer(request)).then(
        (a) => {
          response.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
          response.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ __type: 'InternalFailure', message: String(error) }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A Secrets Manager stand-in over `secrets`, read at each call (so a test can rotate a value). */
export function secretsAnswer(secrets: Readonly<Record<string, string>>) {
  return (request: StandInRequest): StandInAnswer => {
    const { SecretId } = JSON.parse(request.body || '{}') as { SecretId?: string };
    const value = SecretId === undefined ? undefined : secrets[SecretId];
    if (request.target !== 'secretsmanager.GetSecretValue' || value === undefined) {
      return {
        status: 400,
        body: { __type: 'ResourceNotFoundException', message: 'Secrets Manager cannot find the specified secret.' },
      };
    }
    return {
      body: { ARN: `arn:aws:secretsmanager:eu-central-1:123456789012:secret:${SecretId}`, Name: SecretId, SecretString: value },
    };
  };
}
