import type { RuntimeConfig } from '../../lambda/config/env.js';
import { Settings } from '../../lambda/config/settings.js';
import {
  DEFAULT_RUNTIME_ROLES,
  grantRuntimeRoles,
  migrate,
  RUNTIME_ROLES,
  type RuntimeRole,
} from '../../lambda/adapters/pg/schema/migrate.js';
import { DEFAULT_BATCH_ROWS, progressLine } from '../../lambda/adapters/pg/schema/backfill.js';
import { reembed } from '../../lambda/adapters/pg/schema/reembed.js';
import { runningServer } from '../../lambda/dev/data-dir.js';
import type { SweepReport } from '../../lambda/memory/maintenance/sweeper.js';
import { type RegionSweepReport, sweepRegion } from '../../lambda/region-sweep.js';
import { schemaReport } from './schema-check.js';
import { UsageError } from './args.js';
import { viaServer } from './keys.js';
import { withContainer } from './open.js';
import type { Terminal } from './terminal.js';

/**
 * The function roles `naaba migrate` grants to (decision 0093): `none`, or the defaults with any of
 * them renamed by `--runtime-roles mcp=…,authorizer=…,sweeper=…`.
 */
export function runtimeRoles(text: string | undefined): Record<RuntimeRole, string> | 'none' {
  if (text === 'none') return 'none';
  const roles = { ...DEFAULT_RUNTIME_ROLES };
  for (const part of (text ?? '').split(',').filter(Boolean)) {
    const [name = '', role = ''] = part.split('=').map((s) => s.trim());
    if (!(RUNTIME_ROLES as readonly string[]).includes(name) || !/^[a-z_][a-z0-9_]*$/.test(role)) {
      throw new UsageError(`--runtime-roles: "${part}" is not FUNCTION=ROLE with FUNCTION one of ${RUNTIME_ROLES.join(', ')}`);
    }
    roles[name as RuntimeRole] = role;
  }
  return roles;
}

export interface MigrateOptions {
  /** Report how the database stands against this code, change nothing. */
  readonly check: boolean;
  /** Apply contract migrations too (once no older code runs anywhere). */
  readonly contract: boolean;
  /** Apply a migration that rewrites a populated table, once the rewrite is planned (decision 0152). */
  readonly allowRewrite: boolean;
  readonly json: boolean;
  /** `--batch`: rows per batch of a backfill step (decision 0099). */
  readonly batch?: string | undefined;
}

/** `naaba migrate --batch N`: rows per backfill batch, 100 to 100,000 (5,000 unless given). */
export function backfillBatchRows(text: string | undefined): number {
  const rows = Number(text ?? DEFAULT_BATCH_ROWS);
  if (!Number.isInteger(rows) || rows < 100 || rows > 100_000) {
    throw new UsageError('--batch must be an integer from 100 to 100000 for naaba migrate');
  }
  return rows;
}

/**
 * `naaba migrate`: applies pending migrations as the schema owner, stopping before a contract
 * migration unless `--contract`, then grants the runtime role its DML (a server only; the local
 * data folder has one user). `--check` changes nothing: it says whether the database is behind,
 * current or ahead of this code and whether the connection could change the schema; the exit
 * status is 0 only when this code may run against it.
 */
export async function migrateCommand(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  options: MigrateOptions,
): Promise<number> {
  return withContainer(t, config, async (container) => {
    const sql = await container.sql();
    if (options.check) {
      const report = await schemaReport(sql);
      t.print(options.json ? JSON.stringify(report.json) : report.lines.join('\n'));
      return report.json.compatible ? 0 : 1;
    }
    const server = config.database.kind !== 'pglite';
    const roles = runtimeRoles(new Settings(t.env, flags).string('NAABA_DB_RUNTIME_ROLES'));
    const batchRows = backfillBatchRows(options.batch);
    const applied = await migrate(sql, {
      batchRows,
      progress: (p) => t.print(progressLine(p)),
      embeddingDimensions: config.embedder.dimensions,
      regions: server ? config.database.regions : undefined,
      hashBuckets: server ? config.database.hashBuckets : undefined,
      stopBeforeContract: server && !options.contract,
      allowRewrite: options.allowRewrite,
    });
    t.print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'schema is up to date');
    if (server && roles !== 'none') {
      await grantRuntimeRoles(sql, roles);
      const named = RUNTIME_ROLES.map((r) => `${roles[r]} (${r})`).join(', ');
      t.print(`function roles ${named}: granted the DML of sql/${sql.engine}/runtime-grants.sql`);
    } else if (server) {
      t.print(
        'function roles: none granted (--runtime-roles none); the functions would need the owner, which can change the schema',
      );
    }
    return 0;
  });
}

/** One line saying what a sweep removed, per kind with a TTL, and whether it stopped at its bound. */
export function sweepSummary(report: SweepReport): string {
  const expired =
    Object.entries(report.expired)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'no kind has a TTL';
  const more = report.incomplete ? ' (stopped at the batch bound; run again to continue)' : '';
  const { built, dropped, placed } = report.cells;
  const cells =
    built + dropped + placed > 0
      ? `; vector cells: ${built} partitions built, ${dropped} dropped, ${placed} new memories placed`
      : '';
  const passages = report.passages > 0 ? `; passage masks written to ${report.passages} postings` : '';
  return `sweep of region ${report.region}: expired ${expired}; journal lines trimmed ${report.trimmed}${passages}${cells}${more}`;
}

/**
 * `naaba sweep`: one sweep of the region, as the scheduled Lambda runs it. While a local server
 * owns the data folder the sweep runs inside it (the embedded database admits one process);
 * otherwise here, with progress per batch.
 */
export async function sweepCommand(t: Terminal, config: RuntimeConfig): Promise<void> {
  const note = config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
  if (note) {
    const report = await viaServer<RegionSweepReport>(note, 'POST', '/admin/sweep');
    t.print(`${sweepSummary(report)} (run by the server at ${note.url})`);
    return;
  }
  await withContainer(t, config, async (container) => {
    const report = await sweepRegion(container, (step) => {
      const done = step.phase === 'cells' ? 'put in cells' : step.phase === 'passages' ? 'walked for passage masks' : 'deleted';
      if (step.count > 0) t.print(`  ${step.phase}${step.kind ? ` ${step.kind}` : ''}: ${step.count} ${done}`);
    });
    t.print(sweepSummary(report));
  });
}

/**
 * `naaba reembed [--batch 100]`: rewrites every stored vector and lexical terms with the embedder
 * and text language in force, with progress; safe to interrupt and run again (it continues).
 */
export async function reembedCommand(t: Terminal, config: RuntimeConfig, batchText: string | undefined): Promise<void> {
  const batch = Number(batchText ?? 100);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new UsageError('--batch must be an integer from 1 to 1000');
  await withContainer(t, config, async (container) => {
    const [sql, embedder] = await Promise.all([container.sql(), container.embedder()]);
    const analyzer = container.analyzer;
    t.print(`re-embedding with ${embedder.name}, terms by ${analyzer.name}, ${batch} per batch`);
    const started = Date.now();
    const result = await reembed(sql, embedder, analyzer, {
      batch,
      onBatch: ({ done, total }) =>
        t.print(`  ${done} of ${total} memories (${total === 0 ? 100 : Math.floor((100 * done) / total)} %)`),
    });
    t.print(
      `done: ${result.done} memories rewritten in ${((Date.now() - started) / 1000).toFixed(1)} s; the database now records ${embedder.name} and ${analyzer.name}`,
    );
  });
}
