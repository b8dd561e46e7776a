import { jest } from '@jest/globals';
import { lambdaContext, tokenEvent } from './events.js';
import { setEnvironment } from './process-env.js';
import type { HandlerRuntime } from './runtime.js';

// Metrics are emitted only inside a Lambda container; these are the variables its runtime sets.
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-authorizer',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
});
const { installRuntime } = await import('./runtime.js');
const { handler } = await import('../../lambda/handlers/authorizer.js');

let runtime: HandlerRuntime;
beforeAll(async () => {
  runtime = await installRuntime();
});
afterAll(async () => {
  await runtime.close();
  restoreEnvironment();
});

interface Emf {
  readonly _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] };
  readonly [name: string]: unknown;
}

async function emfLines(act: () => Promise<unknown>): Promise<Emf[]> {
  const chunks: string[] = [];
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await act();
  } finally {
    out.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);
}

test('in Lambda, two warm calls each flush their metrics, with one cold start in all', async () => {
  const key = await runtime.issue('metered');
  const call = () => handler(tokenEvent(`Bearer ${key.token}`), lambdaContext('naaba-authorizer'));

  const first = await emfLines(call);
  const second = await emfLines(call);

  const names = (lines: Emf[]) => lines.flatMap((l) => l._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name)));
  expect(names(first).sort()).toEqual(['ColdStart', 'authorization_allow']);
  expect(names(second)).toEqual(['authorization_allow']);
  expect(first[0]?._aws.CloudWatchMetrics[0]?.Namespace).toBe('naaba');
});
