import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint();
});
afterAll(async () => endpoint.close());

test('remember then recall through the local endpoint', async () => {
  const key = await endpoint.issueKey('alice');
  const client = await connect(endpoint.mcpUrl, key.token);
  await call(client, 'remember', { content: 'The sky is blue.', kind: 'fact' });
  const result = await call<{ memories: { content: string }[] }>(client, 'recall', { query: 'sky colour' });
  expect(result.structuredContent.memories.map((m) => m.content)).toEqual(['The sky is blue.']);
  await client.close();
});
