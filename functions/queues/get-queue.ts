/** GET /api/v1/accounts/{id}/queue: an account's posting times (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DirectoryTable } from '../../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbQueueStore } from '../../lib/store/dynamodb-queue-store.js';
import { checkNoQuery } from '../../lib/use-cases/post-lookup.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { AccountQueues } from '../../lib/use-cases/queues.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const directory = new DirectoryTable();
  const queues = new AccountQueues({ accounts: new DynamoDbAccountStore(directory), queues: new DynamoDbQueueStore(directory), clock: systemClock });
  return {
    pipeline: authenticatedPipeline(directory),
    route: async (request, caller) => {
      checkNoQuery(request.query, 'GET /accounts/{id}/queue');
      return { status: 200, body: await queues.get(caller, request.pathParameters.id ?? '') };
    },
  };
});
