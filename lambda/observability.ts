import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The structured logger every handler shares. It receives request ids, principal ids, tool names
 * and latencies, never an event, a header, a token or its hash, or memory content.
 */
export const logger = new Logger({ serviceName: 'naaba' });
