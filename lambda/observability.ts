import { Logger } from '@aws-lambda-powertools/logger';
import { environment } from './config/env.js';

type LogLevel = NonNullable<ConstructorParameters<typeof Logger>[0]>['logLevel'];

/**
 * The structured logger every handler shares. It receives request ids, principal ids, tool names
 * and latencies, never an event, a header, a token or its hash, or memory content. Its level is
 * fixed at start: NAABA_LOG_LEVEL, else Powertools' own POWERTOOLS_LOG_LEVEL, else INFO.
 */
export const logger = new Logger({
  serviceName: 'naaba',
  logLevel: (environment().NAABA_LOG_LEVEL ?? environment().POWERTOOLS_LOG_LEVEL ?? 'INFO') as LogLevel,
});
