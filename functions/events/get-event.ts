/** GET /api/v1/events/{id}: one of the caller's events, as its webhooks were sent it (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DynamoDbEventStore } from '../../lib/store/dynamodb-event-store.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { Events } from '../../lib/use-cases/events.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const events = new Events({
    events: new DynamoDbEventStore(),
    clock: systemClock,
    cursorSigningKey: () => Promise.reject(new Error('GET /events/{id} signs no cursor')),
  });
  return {
    pipeline: authenticatedPipeline(),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /events/{id}');
      return { status: 200, body: await events.get(caller, request.pathParameters.id ?? '') };
    },
  };
});
