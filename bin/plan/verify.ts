import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import type { RuntimeQuery } from './catalogue.js';
import { explain, type Plan } from './explain.js';
import { planProblems } from './rules.js';

/** The verdict on one statement. */
export interface PlanVerdict {
  readonly name: string;
  readonly problems: readonly string[];
  readonly plan: Plan | undefined;
}

export interface PlanReport {
  readonly engine: SqlClient['engine'];
  readonly verdicts: readonly PlanVerdict[];
  readonly ok: boolean;
}

/** EXPLAINs each statement on the client's engine and checks its plan against what it must show. */
export async function verifyPlans(db: SqlClient, queries: readonly RuntimeQuery[]): Promise<PlanReport> {
  const verdicts: PlanVerdict[] = [];
  for (const query of queries) {
    try {
      const plan = await explain(db, { text: query.text, values: query.params });
      verdicts.push({ name: query.name, problems: planProblems(query.text, query.expect, plan), plan });
    } catch (error) {
      verdicts.push({ name: query.name, problems: [`EXPLAIN failed: ${(error as Error).message}`], plan: undefined });
    }
  }
  return { engine: db.engine, verdicts, ok: verdicts.every((v) => v.problems.length === 0) };
}

/** The report as text: one line per statement, and the plan of each one that failed (of each one, when verbose). */
export function renderReport(report: PlanReport, verbose = false): string {
  const width = Math.max(...report.verdicts.map((v) => v.name.length));
  const lines = [`query plans on ${report.engine}:`];
  for (const v of report.verdicts) {
    lines.push(`  ${v.problems.length === 0 ? 'ok  ' : 'FAIL'}  ${v.name.padEnd(width)}  ${v.problems.join('; ')}`.trimEnd());
  }
  for (const v of report.verdicts.filter((x) => (verbose || x.problems.length > 0) && x.plan)) {
    lines.push('', `plan of "${v.name}":`, ...(v.plan?.lines ?? []).map((l) => `    ${l}`));
  }
  lines.push('', report.ok ? 'every plan holds' : 'some plans do not hold');
  return lines.join('\n');
}
