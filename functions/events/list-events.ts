/** GET /api/v1/events: the caller's events of the last 30 days, newest first, paginated (scope `read`). */
import { ENV } from '../../lib/config.js';
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { readSecret } from '../../lib/secrets.js';
import { DynamoDbEventStore } from '../../lib/store/dynamodb-event-store.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { Events, parseListEventsQuery } from '../../lib/use-cases/events.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const events = new Events({
    events: new DynamoDbEventStore(),
    clock: systemClock,
    // The value itself locally, a Secrets Manager secret (fetched once) on AWS.
    cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => ({ status: 200, body: await events.list(caller, parseListEventsQuery(request.query)) }),
  };
});
