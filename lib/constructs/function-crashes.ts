import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { APP_NAMESPACE, PERIOD } from './naaba-metrics.js';

/**
 * What the Lambda runtime writes to a function's log when an invocation fails outside the
 * handler's own answers (text log format): a timeout, a runtime error (import, out of memory, an
 * exit or an unhandled rejection), or an error thrown out of the handler. Each pattern is a
 * CloudWatch Logs filter pattern over one log event.
 */
export const CRASH_PATTERNS = {
  timeout: '"Task timed out"',
  runtime: '"Runtime."',
  thrown: '"Invoke Error"',
} as const;

/**
 * The errors the authorizer throws on purpose, which Lambda counts in `Errors` like any other: the
 * `Unauthorized` that API Gateway turns into a 401 and the `AuthorizerFailure` it turns into the
 * 503 (lambda/http/api-gateway.ts). A thrown error that is neither is a crash.
 */
export const CHOSEN_AUTHORIZER_ERRORS = ['Unauthorized', 'AuthorizerFailure'] as const;

export interface FunctionCrashesProps {
  readonly logGroup: ILogGroup;
  /** The metric's name in namespace `naaba` (no dimensions), e.g. `authorizer_crash`. */
  readonly metricName: string;
  /** Errors the handler throws on purpose: a thrown error naming one of them is not a crash. */
  readonly chosenErrors?: readonly string[];
}

/**
 * Counts a function's crashes and timeouts from its log, one metric filter per kind of runtime
 * line (decision 0090). Lambda's `Errors` cannot tell them from the errors a TOKEN authorizer must
 * throw to answer 401 or 503; the log can.
 */
export class FunctionCrashes extends Construct {
  readonly metric: Metric;
  /** The filter patterns, as CloudWatch evaluates them: what the tests hold against runtime lines. */
  readonly patterns: readonly string[];

  constructor(scope: Construct, id: string, props: FunctionCrashesProps) {
    super(scope, id);
    const exclusions = (props.chosenErrors ?? []).map((name) => ` -${name}`).join('');
    this.patterns = [CRASH_PATTERNS.timeout, CRASH_PATTERNS.runtime, `${CRASH_PATTERNS.thrown}${exclusions}`];
    for (const [i, pattern] of this.patterns.entries()) {
      new MetricFilter(this, `Filter${i}`, {
        logGroup: props.logGroup,
        metricNamespace: APP_NAMESPACE,
        metricName: props.metricName,
        filterPattern: FilterPattern.literal(pattern),
        metricValue: '1',
      });
    }
    this.metric = new Metric({ namespace: APP_NAMESPACE, metricName: props.metricName, statistic: 'Sum', period: PERIOD });
  }
}
