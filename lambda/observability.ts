import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
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

/**
 * The structured log a request's code writes to (the MCP tools, the page's API, the sign-in routes):
 * ids, names, outcomes and timings only, never content, a header or a token. {@link logger} is one;
 * tests pass a recorder.
 */
export interface RequestLog {
  info(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/**
 * What an ERROR line may say about an unexpected error: its name, a driver's error code and where
 * it was thrown. Never its message: messages of database and validation errors quote the input
 * (`invalid input syntax for type uuid: "…"`), and no caller text may reach an ERROR line.
 */
export function loggable(error: unknown): { name: string; code?: string; at?: string; causes?: string[] } {
  if (!(error instanceof Error)) return { name: typeof error };
  const code = (error as { code?: unknown }).code;
  const at = error.stack?.split('\n').slice(1, 6).join('\n');
  const causes = causeNames(error.cause);
  return {
    name: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    ...(at ? { at } : {}),
    ...(causes.length > 0 ? { causes } : {}),
  };
}

/**
 * The chain of causes by name, with a provider's HTTP status or a driver's code where it has one
 * (`ProviderCallError`, `AccessDeniedException 403`): what an operator needs, and no message.
 */
function causeNames(cause: unknown, depth = 0): string[] {
  if (!(cause instanceof Error) || depth >= 4) return [];
  const e = cause as Error & { code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = e.$metadata?.httpStatusCode;
  const detail = typeof status === 'number' ? ` ${status}` : typeof e.code === 'string' ? ` ${e.code}` : '';
  return [`${e.name}${detail}`, ...causeNames(e.cause, depth + 1)];
}

/**
 * The counts a deploy's alarms judge the new version by (decision 0091): each is also emitted with
 * a `version` dimension, the published version that counted it. Kept in step with
 * `RELEASE_COUNTS` of lib/constructs/naaba-metrics.ts by test/infra/in-step.test.ts.
 */
export const RELEASE_COUNTS = /^(tool_call_[a-z_]+|judge_asked|judge_unavailable|store_unavailable|authorizer_failure)$/;

/** The published version this container runs (`$LATEST` when invoked unqualified, as the sweeper is). */
const functionVersion = env.AWS_LAMBDA_FUNCTION_VERSION;

/** Adds to a count metric of this invocation; a no-op outside Lambda. Names: decision 0051. */
export function count(name: string, value = 1): void {
  if (!inLambda) return;
  metrics.addMetric(name, MetricUnit.Count, value);
  if (functionVersion && functionVersion !== '$LATEST' && RELEASE_COUNTS.test(name)) {
    // One more line, flushed at once: the version's own series, beside the function's.
    metrics.singleMetric().addDimension('version', functionVersion).addMetric(name, MetricUnit.Count, value);
  }
}

/**
 * The middlewares every handler uses: the Lambda context in each log line (keys reset per call)
 * and, inside Lambda, metrics flushed after each invocation with a cold-start count.
 */
export function observed(): Middleware[] {
  const context = injectLambdaContext(logger, { resetKeys: true });
  return inLambda ? [context, logMetrics(metrics, { captureColdStartMetric: true })] : [context];
}

/** Annotations a subsegment may carry: labels and codes chosen by the code, never input or content. */
export type SpanAnnotations = Readonly<Record<string, string | number | boolean>>;

/** What the adapters trace through. Built only where a handler asked for tracing; see {@link tracing}. */
export interface Tracing {
  /** The SDK client, with one subsegment per call (service, operation, region, request id; no parameters). */
  captureClient<T>(client: T): T;
  /** Runs `work` in a subsegment of the current segment called `name`, carrying only `annotations`. */
  span<T>(name: string, annotations: SpanAnnotations, work: () => Promise<T>): Promise<T>;
}

/** The error fields a subsegment may keep: a thrown error's name and driver code, never its message. */
function errorAnnotations(error: unknown): SpanAnnotations {
  if (!(error instanceof Error)) return { error: typeof error };
  const code = (error as { code?: unknown }).code;
  return { error: error.name, ...(typeof code === 'string' ? { error_code: code } : {}) };
}

/** {@link Tracing} over a Powertools tracer. Subsegments are never made current, so concurrent spans cannot nest by mistake. */
export function tracingWith(tracer: Pick<Tracer, 'getSegment' | 'captureAWSv3Client'>): Tracing {
  return {
    captureClient: (client) => tracer.captureAWSv3Client(client),
    async span(name, annotations, work) {
      const parent = tracer.getSegment();
      if (!parent) return work();
      const subsegment = parent.addNewSubsegment(name);
      subsegment.addAttribute('namespace', 'remote');
      for (const [key, value] of Object.entries(annotations)) subsegment.addAnnotation(key, value);
      try {
        return await work();
      } catch (error) {
        // Not addError(error): a database error's message quotes what was sent.
        for (const [key, value] of Object.entries(errorAnnotations(error))) subsegment.addAnnotation(key, value);
        subsegment.addErrorFlag();
        throw error;
      } finally {
        subsegment.close();
      }
    },
  };
}

interface LoadedTracing {
  readonly tracing: Tracing;
  readonly middleware: MiddlewareObj;
}

/** Set by {@link traced}: only a function whose handler traces loads the X-Ray SDK at all. */
let loading: Promise<LoadedTracing | undefined> | undefined;

/**
 * The Powertools tracer and its middleware, as the tracing handler imports them: the import sits
 * in that handler, so the other functions' bundles do not even carry the X-Ray SDK.
 */
export type TracerModules = () => Promise<{ Tracer: typeof Tracer; captureLambdaHandler: typeof captureLambdaHandler }>;

async function loadTracing(modules: TracerModules): Promise<LoadedTracing | undefined> {
  const { Tracer, captureLambdaHandler } = await modules();
  const tracer = new Tracer({ serviceName: 'naaba' });
  if (!tracer.isTracingEnabled()) return undefined;
  // captureResponse off: a response carries memory content, which never goes to a trace.
  return { tracing: tracingWith(tracer), middleware: captureLambdaHandler(tracer, { captureResponse: false }) };
}

/**
 * The X-Ray middleware of a handler that traces (the endpoint function, which has active tracing).
 * Inside Lambda, unless POWERTOOLS_TRACE_ENABLED=false, the tracer is loaded on the first
 * invocation (the X-Ray SDK is a large import); elsewhere nothing is loaded and nothing changes.
 */
export function traced(modules: TracerModules): MiddlewareObj {
  if (inLambda && env.POWERTOOLS_TRACE_ENABLED !== 'false') {
    loading ??= loadTracing(modules).catch((error: unknown) => {
      // Untraced beats unavailable: the function answers without X-Ray.
      logger.error('tracing could not start', { error: errorAnnotations(error) });
      return undefined;
    });
  }
  const step = (hook: 'before' | 'after' | 'onError') => async (request: Request) => {
    const middleware = (await loading)?.middleware[hook];
    if (middleware) await middleware(request);
  };
  return { before: step('before'), after: step('after'), onError: step('onError') };
}

/** The tracing of this function, or undefined where its handler does not trace (or outside Lambda). */
export async function tracing(): Promise<Tracing | undefined> {
  return (await loading)?.tracing;
}
