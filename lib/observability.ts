/**
 * One logger per cold start, shared by every module of a function (the metrics instance, which
 * only the workers and the sweeper use, is in lib/worker-metrics.ts, so that the other functions'
 * bundles do not carry Powertools Metrics: a module-scope `new` stays in every bundle that imports
 * its module).
 * Logs are structured JSON with the Lambda request id; nothing secret is ever passed to them
 * (API keys, platform tokens, signing keys), so there is nothing to redact after the fact.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'social-publishing-api';

export const logger = new Logger({
  serviceName,
  // The local stack and tests default to warnings only so test output stays readable.
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'WARN') as 'WARN',
});
