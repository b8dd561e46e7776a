import { handler as mcp } from '../../lambda/handlers/mcp.js';
import { handler as sweep } from '../../lambda/handlers/sweeper.js';
import { lambdaContext, mcpCall, scheduledEvent } from './events.js';
import { contextOf, type HandlerRuntime, installRuntime, REGION } from './runtime.js';

let runtime: HandlerRuntime;
beforeAll(async () => {
  runtime = await installRuntime();
});
afterAll(async () => runtime.close());

test('the scheduled sweeper deletes an expired session memory; a second warm run finds nothing left', async () => {
  const principal = contextOf(await runtime.issue('sweeper-tests'));
  const remember = mcpCall(
    'tools/call',
    { name: 'remember', arguments: { content: 'Working on the CDK stack.', kind: 'session' } },
    principal,
  );
  expect((await mcp(remember, lambdaContext('naaba-mcp'))).statusCode).toBe(200);
  runtime.clock.advance(25 * 3600);

  const first = await sweep(scheduledEvent(), lambdaContext('naaba-sweeper'));
  const second = await sweep(scheduledEvent(), lambdaContext('naaba-sweeper'));

  expect(first).toEqual({ region: REGION, expired: { session: 1 }, trimmed: 0, incomplete: false });
  expect(second).toEqual({ region: REGION, expired: { session: 0 }, trimmed: 0, incomplete: false });
});
