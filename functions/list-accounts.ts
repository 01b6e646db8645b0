/** GET /api/v1/accounts: every connected account of the caller (scope `read`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { authenticatedPipeline } from '../lib/http/api-pipeline.js';
import { DirectoryTable } from '../lib/store/directory-table.js';
import { DynamoDbAccountStore } from '../lib/store/dynamodb-account-store.js';
import { DynamoDbWorkspaceStore } from '../lib/store/dynamodb-workspace-store.js';
import { ListAccounts, parseListAccountsQuery } from '../lib/use-cases/list-accounts.js';

export const handler = apiHandler({ scope: 'read' }, () => {
  const directory = new DirectoryTable();
  const listAccounts = new ListAccounts({ accounts: new DynamoDbAccountStore(directory), workspaces: new DynamoDbWorkspaceStore(directory) });
  return {
    pipeline: authenticatedPipeline(directory),
    route: async (request, caller) => {
      const filter = parseListAccountsQuery(request.query);
      return { status: 200, body: await listAccounts.execute(caller, filter) };
    },
  };
});
