/**
 * One logger and one metrics instance per cold start, shared by every module of a function.
 * Logs are structured JSON with the Lambda request id; nothing secret is ever passed to them
 * (API keys, platform tokens, signing keys), so there is nothing to redact after the fact.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'social-publishing-api';

export const logger = new Logger({
  serviceName,
  // The local stack and tests default to warnings only so test output stays readable.
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'WARN') as 'WARN',
});

export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'SocialPublishing', serviceName });
