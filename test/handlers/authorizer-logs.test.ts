import { createHash } from 'node:crypto';
import { lambdaContext, tokenEvent } from './events.js';
import { setEnvironment } from './process-env.js';
import type { HandlerRuntime } from './runtime.js';
import { capturedOutput } from '../support/output.js';

// The logger's level is fixed when its module loads: raise it before the handler is imported.
const restoreEnvironment = setEnvironment({ NAABA_LOG_LEVEL: 'DEBUG' });
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

/** Everything written to stdout and stderr while `act` runs. */
const captured = async (act: () => Promise<unknown>): Promise<string> => (await capturedOutput(act)).output;

test('logs of allowed, refused and other-region calls carry neither the token nor its hash', async () => {
  const keys = [await runtime.issue('logged'), await runtime.issue('revoked'), await runtime.issue('abroad', 'us-east-1')];
  await (await runtime.container.keys()).revoke(keys[1]?.keyId ?? '');
  const unknown = `nb_${'Q'.repeat(43)}`;
  const tokens = [...keys.map((k) => k.token), unknown];

  const output = await captured(async () => {
    for (const token of tokens)
      await handler(tokenEvent(`Bearer ${token}`), lambdaContext('naaba-authorizer')).catch(() => undefined);
  });

  expect(output.match(/"message":"authorization"/g)).toHaveLength(4);
  for (const token of tokens) {
    const hash = createHash('sha256').update(token).digest('hex');
    expect(output).not.toContain(token.slice(3));
    expect(output).not.toContain(hash);
    expect(output).not.toContain(hash.toUpperCase());
    expect(output).not.toContain(Buffer.from(hash, 'hex').toString('base64'));
  }
});

test('outside Lambda the handlers print no CloudWatch metric lines', async () => {
  const key = await runtime.issue('quiet-metrics');

  const output = await captured(() => handler(tokenEvent(`Bearer ${key.token}`), lambdaContext('naaba-authorizer')));

  expect(output).toContain('"message":"authorization"');
  expect(output).not.toContain('_aws');
});
