/** GET /api/v1/accounts/{id}/queue/next?count=N: an account's next free queue slots (scope `read`). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { DirectoryTable } from '../../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbQueueStore } from '../../lib/store/dynamodb-queue-store.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { AccountQueues } from '../../lib/use-cases/queues.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const directory = new DirectoryTable();
  const queues = new AccountQueues({ accounts: new DynamoDbAccountStore(directory), queues: new DynamoDbQueueStore(directory), clock: systemClock });
  return {
    pipeline: authenticatedPipeline(directory),
    route: async (request, caller) => ({ status: 200, body: await queues.next(caller, request.pathParameters.id ?? '', request.query) }),
  };
});
