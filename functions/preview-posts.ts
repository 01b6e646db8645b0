/**
 * POST /api/v1/posts/preview (scope `write`): the post_batch a create with this body would answer,
 * from the assistant server's preview (lib/use-cases/preview-posts.ts, one rule in one place).
 * Writes nothing, spends nothing, sends nothing: it reads the allowance, never spends it.
 */
import { ENV, requireEnv } from '../lib/config.js';
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DynamoDbAllowanceReader } from '../lib/store/allowance-counter.js';
import { DirectoryTable } from '../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbMediaStore } from '../lib/store/dynamodb-media-store.js';
import { DynamoDbWorkspaceStore } from '../lib/store/dynamodb-workspace-store.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { DynamoDbQueueStore } from '../lib/store/dynamodb-queue-store.js';
import { PreviewPosts, previewBatch } from '../lib/use-cases/preview-posts.js';

export const handler = apiHandler({ scope: 'write', jsonBody: true }, () => {
  const directory = new DirectoryTable();
  const previewPosts = new PreviewPosts({
    accounts: new DynamoDbAccountStore(directory),
    workspaces: new DynamoDbWorkspaceStore(directory),
    media: new DynamoDbMediaStore(directory),
    // The allowance read, never spent (the counters table: its rate-limit grant covers the GetItem).
    allowance: new DynamoDbAllowanceReader(),
    clock: systemClock,
    mediaBaseUrl: requireEnv(ENV.mediaBaseUrl),
    queues: new DynamoDbQueueStore(directory),
  });
  return {
    pipeline: authenticatedPipeline(directory),
    route: async (request, caller) => ({ status: 200, body: previewBatch(await previewPosts.execute(caller, request.body, 'write')) }),
  };
});
