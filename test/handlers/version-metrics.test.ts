import { capturedOutput } from '../support/output.js';
import { lambdaContext, mcpCall, tokenEvent } from './events.js';
import { setEnvironment } from './process-env.js';

/**
 * The counts a deploy judges a new version by (decision 0091) are emitted a second time with the
 * published version that counted them, as the release alarms read them (`service`, `version`); the
 * other counts are not. A container invoked through version 7 of its function, as the runtime sets it.
 */
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-mcp',
  AWS_LAMBDA_FUNCTION_VERSION: '7',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  NAABA_LOG_LEVEL: 'SILENT',
});
const { handler } = await import('../../lambda/handlers/endpoint.js');
const { handler: authorize } = await import('../../lambda/handlers/authorizer.js');
const { installRuntime } = await import('./runtime.js');

afterAll(() => restoreEnvironment());

/** The EMF blobs of `output`, each as its dimension sets and the metrics it carries. */
function emf(output: string): { dimensions: string[][]; metrics: Record<string, unknown> }[] {
  return output
    .split('\n')
    .filter((l) => l.includes('"_aws"'))
    .map(
      (l) =>
        JSON.parse(l) as Record<string, unknown> & {
          _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
        },
    )
    .map((blob) => {
      const [directive] = blob._aws.CloudWatchMetrics;
      return {
        dimensions: directive?.Dimensions ?? [],
        metrics: Object.fromEntries((directive?.Metrics ?? []).map((m) => [m.Name, blob[m.Name]])),
      };
    });
}

test('a tool call and a refused key: the release counts once more with version=7, the others with the service only', async () => {
  const runtime = await installRuntime();
  try {
    const key = await runtime.issue('versioned');
    const principal = { userId: key.userId, region: key.region, agent: key.name, keyId: key.keyId };
    const { output } = await capturedOutput(async () => {
      await handler(
        mcpCall('tools/call', { name: 'recall', arguments: { query: 'anything' } }, principal),
        lambdaContext('naaba-mcp'),
      );
      await authorize(tokenEvent(`Bearer nb_${'z'.repeat(43)}`), lambdaContext('naaba-authorizer')).catch(() => undefined);
    });
    const blobs = emf(output);
    const versioned = blobs.filter((b) => JSON.stringify(b.dimensions) === JSON.stringify([['service', 'version']]));
    const plain = blobs.filter((b) => JSON.stringify(b.dimensions) === JSON.stringify([['service']]));

    expect(versioned.map((b) => b.metrics)).toEqual([{ tool_call_ok: 1 }]);
    expect(output).toContain('"version":"7"');
    expect(plain.flatMap((b) => Object.keys(b.metrics))).toEqual(
      expect.arrayContaining(['tool_call_ok', 'recall_ok', 'http_2xx', 'authorization_unauthorized']),
    );
  } finally {
    await runtime.close();
  }
});
