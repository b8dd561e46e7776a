import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import { Container } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config/env.js';
import { EmbedderError } from '../../lambda/memory/errors.js';
import type { Embedder } from '../../lambda/ports/embedder.js';
import { freshDatabase } from '../support/database.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { memoryServices } from '../../lambda/memory/services.js';
import { ManualClock } from '../support/clock.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/** An embedder that answers what the test says, to break the dimension invariant on purpose. */
class ScriptedEmbedder implements Embedder {
  readonly name = 'scripted';
  constructor(
    readonly dimensions: number,
    private readonly answer: () => number[] | Promise<number[]>,
  ) {}
  async embed(): Promise<number[]> {
    return this.answer();
  }
}

let db: PgliteSqlClient;
beforeAll(async () => {
  db = await freshDatabase(256);
});
afterAll(async () => db.close());

const stored = async () => (await db.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM memories`))[0]?.n;

test('start-up refuses an embedder whose dimension differs from the schema’s, and says how to move to it', async () => {
  const container = new Container(loadConfig({}), { sql: db, embedder: new LocalEmbedder(128) });
  await expect(container.memory()).rejects.toThrow(SchemaError);
  await expect(container.memory()).rejects.toThrow(
    'the schema stores 256 dimensions, the embedder makes 128. Run `naaba reembed` with these settings',
  );
  const matching = new Container(loadConfig({}), { sql: db, embedder: new LocalEmbedder(256) });
  await expect(matching.memory()).resolves.toBeDefined();
});

describe('every embedder response is checked; a bad one stores nothing', () => {
  const cases: [string, () => number[], RegExp][] = [
    ['too short', () => new Array(255).fill(0.1), /dimension mismatch in an embedder response: expected 256, got 255/],
    ['too long', () => new Array(1024).fill(0.01), /expected 256, got 1024/],
    ['not finite', () => [Number.NaN, ...new Array(255).fill(0)], /non-finite/],
    [
      'the provider fails',
      () => {
        throw new Error('connection reset');
      },
      /embedding provider failed; nothing was stored/,
    ],
  ];
  test.each(cases)('%s', async (_label, answer, message) => {
    const service = memoryServices({
      stores: sqlMemoryStores(db),
      embedder: new ScriptedEmbedder(256, answer),
      judge: new ScriptedJudge(() => 'different'),
      clock: new ManualClock(),
      rules: DEFAULT_RULES,
    }).curation;
    const before = await stored();
    const attempt = service.remember(principal(), CLIENT, { content: 'anything', kind: 'fact' });
    await expect(attempt).rejects.toThrow(EmbedderError);
    await expect(service.remember(principal(), CLIENT, { content: 'anything', kind: 'fact' })).rejects.toThrow(message);
    expect(await stored()).toBe(before);
  });

  test('a well-formed response is stored (so the cases above can fail)', async () => {
    const { service } = serviceOver(db);
    await service.remember(principal(), CLIENT, { content: 'anything', kind: 'fact' });
    expect(await stored()).toBe(1);
  });
});
