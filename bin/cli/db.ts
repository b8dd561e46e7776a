import type { RuntimeConfig } from '../../lambda/config/env.js';
import { migrate } from '../../lambda/adapters/pg/migrate.js';
import { withContainer } from './open.js';

/** `naaba migrate`: applies pending migrations to the configured database. */
export async function migrateCommand(config: RuntimeConfig): Promise<void> {
  await withContainer(config, async (container) => {
    const sql = await container.sql();
    const regions = config.database.kind === 'pglite' ? undefined : config.database.regions;
    const applied = await migrate(sql, { embeddingDimensions: config.embedder.dimensions, regions });
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'schema is up to date');
  });
}

/** `naaba sweep`: one sweeper run with progress, as the scheduled Lambda does it. */
export async function sweepCommand(config: RuntimeConfig): Promise<void> {
  await withContainer(config, async (container) => {
    const sweeper = await container.sweeper();
    const report = await sweeper.run(config.region, {
      ...config.sweep,
      onBatch: (step) => {
        if (step.count > 0) console.log(`  ${step.phase}${step.kind ? ` ${step.kind}` : ''}: ${step.count} deleted`);
      },
    });
    const expired =
      Object.entries(report.expired)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'no kind has a TTL';
    console.log(
      `sweep of region ${report.region}: expired ${expired}; journal lines trimmed ${report.trimmed}${report.incomplete ? ' (stopped at the batch bound; run again to continue)' : ''}`,
    );
  });
}
