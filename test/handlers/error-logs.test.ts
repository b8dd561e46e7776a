import type { CurationService } from '../../lambda/memory/curation/curation-service.js';
import { ResponseBudget, type ToolContext } from '../../lambda/mcp/context.js';
import { failure } from '../../lambda/mcp/tool-result.js';

/** A database error as `pg` raises it: the message quotes what the caller sent. */
class DatabaseError extends Error {
  override name = 'DatabaseError';
  readonly code = '22P02';
}

test('an unexpected error logs its name, code and place at ERROR, never its message (which quotes the caller)', () => {
  const lines: Record<string, unknown>[] = [];
  const context = {
    memory: {} as CurationService,
    principal: { userId: 'u', region: 'r', agent: 'a', keyId: 'k' },
    client: { name: 'c', version: '1' },
    log: { info: () => undefined, error: (_m: string, attributes: Record<string, unknown>) => lines.push(attributes) },
    budget: new ResponseBudget(1024),
  } satisfies ToolContext;
  const result = failure(new DatabaseError('invalid input syntax for type uuid: "my secret note"'), context, 'recall');
  const logged = JSON.stringify(lines);
  expect(logged).not.toContain('my secret note');
  expect(lines[0]).toMatchObject({ tool: 'recall', error: { name: 'DatabaseError', code: '22P02' } });
  expect(JSON.stringify(result)).not.toContain('my secret note');
  expect(JSON.stringify(result)).toContain(String(lines[0]?.correlationId));
});
