import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The application metrics the functions emit with Powertools Metrics (namespace `naaba`,
 * dimension `service=naaba`), named here once for the alarms and the dashboard.
 */
export const APP_NAMESPACE = 'naaba';
export const APP_SERVICE = 'naaba';

export const TOOLS = ['remember', 'recall', 'forget', 'curation_state'] as const;
export const OUTCOMES = ['ok', 'bad_input', 'embedder_unavailable', 'judge_unavailable', 'store_busy', 'internal'] as const;
export type Tool = (typeof TOOLS)[number];
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The security events the functions count (issue 21's contract): each one also counts
 * `security_event`, which the alarm reads; the names say which kind it was.
 */
export const SECURITY_EVENTS = [
  'code_replay',
  'refresh_reuse',
  'consent_refused',
  'revocation',
  'rate_limited',
  'auth_failed',
] as const;

/** Alarms and the dashboard look at 5-minute sums. */
export const PERIOD = Duration.minutes(5);

/**
 * The 5-minute sum of one application count, e.g. `tool_call_internal`, `recall_ok`, `authorizer_failure`.
 * A label is for graphs only: an alarm on a labelled metric renders as metric math.
 */
export function appCount(metricName: string, label?: string): Metric {
  return new Metric({
    namespace: APP_NAMESPACE,
    metricName,
    dimensionsMap: { service: APP_SERVICE },
    statistic: 'Sum',
    period: PERIOD,
    ...(label ? { label } : {}),
  });
}

/** Every tool call that ended so. */
export const toolCalls = (outcome: Outcome) => appCount(`tool_call_${outcome}`, outcome);

/** Security events of one kind. */
export const securityEvents = (name: (typeof SECURITY_EVENTS)[number]) => appCount(`security_${name}`, name);

/** One tool's calls that ended so. */
export const callsOf = (tool: Tool, outcome: Outcome) => appCount(`${tool}_${outcome}`, outcome);

/**
 * The share of remembers whose judge gave no verdict: `judge_unavailable / judge_asked`, 0 in a
 * period where nothing asked the judge (Powertools emits no zero counts, so both are filled).
 */
export function judgeUnavailableRate(period = PERIOD): MathExpression {
  return new MathExpression({
    expression: 'IF(FILL(asked, 0) > 0, FILL(unavailable, 0) / FILL(asked, 0), 0)',
    usingMetrics: { asked: appCount('judge_asked'), unavailable: appCount('judge_unavailable') },
    period,
    label: 'judge unavailable / judge asked',
  });
}

/**
 * The counts the functions also emit per published version (`version` dimension), for the alarms
 * that judge a new version during its deploy (decision 0091). A copy of `RELEASE_COUNTS` of
 * lambda/observability.ts, held equal by test/infra/in-step.test.ts.
 */
export const RELEASE_COUNTS = [
  ...OUTCOMES.map((o) => `tool_call_${o}` as const),
  'judge_asked',
  'judge_unavailable',
  'store_unavailable',
  'authorizer_failure',
] as const;

/** One application count of one published version (`version` is a token in the stack: the new version's number). */
export function releaseCount(metricName: (typeof RELEASE_COUNTS)[number], version: string): Metric {
  return new Metric({
    namespace: APP_NAMESPACE,
    metricName,
    dimensionsMap: { service: APP_SERVICE, version },
    statistic: 'Sum',
    period: PERIOD,
  });
}

/**
 * The share of one version's tool calls that failed because embeddings could not be had, over all
 * its tool calls; 0 when there were none. The judge has a rate of its own (below): dividing its
 * failures by tool calls hid a judge that failed every time (issue 48).
 */
export function releaseEmbedderFailureRate(version: string): MathExpression {
  const calls = Object.fromEntries(OUTCOMES.map((o) => [`c_${o}`, releaseCount(`tool_call_${o}`, version)]));
  const total = Object.keys(calls)
    .map((id) => `FILL(${id}, 0)`)
    .join(' + ');
  return new MathExpression({
    expression: `IF(${total} > 0, FILL(c_embedder_unavailable, 0) / (${total}), 0)`,
    usingMetrics: calls,
    period: PERIOD,
    label: 'embedder failures / tool calls, this version',
  });
}

/** The share of one version's judge calls that got no verdict: judge failures over judge asks; 0 when none asked. */
export function releaseJudgeFailureRate(version: string): MathExpression {
  return new MathExpression({
    expression: 'IF(FILL(asked, 0) > 0, FILL(unavailable, 0) / FILL(asked, 0), 0)',
    usingMetrics: { asked: releaseCount('judge_asked', version), unavailable: releaseCount('judge_unavailable', version) },
    period: PERIOD,
    label: 'judge unavailable / judge asked, this version',
  });
}
