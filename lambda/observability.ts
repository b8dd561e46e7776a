import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { environment } from './config/env.js';

type LogLevel = NonNullable<ConstructorParameters<typeof Logger>[0]>['logLevel'];
type Middleware = ReturnType<typeof injectLambdaContext>;

const env = environment();

/**
 * True inside a Lambda container (the runtime sets AWS_LAMBDA_FUNCTION_NAME). Metrics are only
 * emitted there: locally and in tests the same handlers run without printing CloudWatch EMF lines.
 */
export const inLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/**
 * The structured logger every handler shares. It receives request ids, principal ids, tool names
 * and latencies, never an event, a header, a token or its hash, or memory content. Its level is
 * fixed at start: NAABA_LOG_LEVEL, else Powertools' own POWERTOOLS_LOG_LEVEL, else INFO.
 */
export const logger = new Logger({
  serviceName: 'naaba',
  logLevel: (env.NAABA_LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? 'INFO') as LogLevel,
});

/**
 * CloudWatch metrics in embedded metric format (written to the function's log, so they need no
 * IAM permission). Powertools' own warnings go through {@link logger}, so tests stay quiet.
 */
export const metrics = new Metrics({ namespace: 'naaba', serviceName: 'naaba', logger });

/** Adds to a count metric of this invocation; a no-op outside Lambda. */
export function count(name: string, value = 1): void {
  if (inLambda) metrics.addMetric(name, MetricUnit.Count, value);
}

/**
 * The middlewares every handler uses: the Lambda context in each log line (keys reset per call)
 * and, inside Lambda, metrics flushed after each invocation with a cold-start count.
 */
export function observed(): Middleware[] {
  const context = injectLambdaContext(logger, { resetKeys: true });
  return inLambda ? [context, logMetrics(metrics, { captureColdStartMetric: true })] : [context];
}
