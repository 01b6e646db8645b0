/** GET /api/v1/accounts: every connected account of the caller (scope `read`). */
import { apiHandler } from '../lib/http/api-handler.js';
import { httpDependencies } from '../lib/http/http-dependencies.js';
import { ListAccounts, parseListAccountsQuery } from '../lib/use-cases/list-accounts.js';

let listAccounts: ListAccounts | undefined;

export const handler = apiHandler(
  async (request, caller) => {
    const filter = parseListAccountsQuery(request.query);
    const { directory } = httpDependencies();
    listAccounts ??= new ListAccounts({ accounts: directory.accounts, workspaces: directory.workspaces });
    return { status: 200, body: await listAccounts.execute(caller, filter) };
  },
  { scope: 'read' },
);
