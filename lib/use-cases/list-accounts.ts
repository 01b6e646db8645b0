/**
 * GET /accounts (api-v1.md): every connected account of the caller, on every platform (also those
 * that cannot be posted to), optionally narrowed to one workspace and/or one platform. Never
 * another user's: the Query is keyed by the caller's own user id.
 *
 * Query parameters are checked strictly, like the rest of the API: a parameter other than
 * `workspaceId` and `platform` is 400 invalid_query naming it (a misspelt filter silently ignored
 * would return every account and look like it worked); an empty value is invalid_query too; a
 * workspace the caller does not own is 400 workspace_not_found (param workspaceId), the
 * contract's code for exactly that, so a typo is told apart from an empty workspace.
 *
 * The workspace filter is the Query's key condition (begins_with on the byOwner index). The
 * platform filter is applied to the Query's result in memory: the endpoint is not paginated and
 * the Query reads the caller's whole (small) account set anyway, so no page is shrunk and
 * nothing extra is read; an index per platform would cost a write per account for no saving.
 */
import { ApiError } from '../domain/errors.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import type { AccountView } from '../domain/views/account-view.js';
import { accountView } from '../domain/views/account-view.js';
import type { Caller } from '../domain/caller.js';
import type { AccountReader } from './ports/accounts.js';
import type { WorkspaceReader } from './ports/workspaces.js';

export interface ListAccountsFilter {
  workspaceId?: string;
  platform?: string;
}

export interface AccountList {
  object: 'list';
  accounts: AccountView[];
}

const ALLOWED_PARAMETERS = ['workspaceId', 'platform'] as const;
// Platform names are lower-case words (linkedin, x, instagram, ...).
const PLATFORM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const MAX_WORKSPACE_ID_LENGTH = 128;

export function parseListAccountsQuery(query: Record<string, string>): ListAccountsFilter {
  checkQueryParameters(query, ALLOWED_PARAMETERS, 'GET /accounts accepts workspaceId and platform.');
  const filter: ListAccountsFilter = {};
  const { workspaceId, platform } = query;
  if (workspaceId !== undefined) {
    if (workspaceId === '') throw new ApiError('invalid_query', 'workspaceId must not be empty.', { param: 'workspaceId' });
    if (workspaceId.length > MAX_WORKSPACE_ID_LENGTH) {
      throw new ApiError('workspace_not_found', 'No workspace with this id is owned by the caller.', { param: 'workspaceId' });
    }
    filter.workspaceId = workspaceId;
  }
  if (platform !== undefined) {
    if (!PLATFORM_NAME.test(platform)) {
      throw new ApiError('invalid_query', 'platform must be one lower-case platform name, such as `linkedin` or `x`.', {
        param: 'platform',
      });
    }
    filter.platform = platform;
  }
  return filter;
}

export class ListAccounts {
  constructor(private readonly deps: { accounts: AccountReader; workspaces: WorkspaceReader }) {}

  async execute(caller: Caller, filter: ListAccountsFilter): Promise<AccountList> {
    if (filter.workspaceId !== undefined) await this.assertOwnsWorkspace(caller, filter.workspaceId);
    const accounts = await this.deps.accounts.listAccounts(
      caller.userId,
      filter.workspaceId === undefined ? {} : { workspaceId: filter.workspaceId },
    );
    return {
      object: 'list',
      accounts: accounts
        // The Query is keyed by the caller's id already; checking again costs nothing and keeps a
        // mis-indexed item from ever crossing tenants.
        .filter((account) => account.userId === caller.userId)
        .filter((account) => filter.platform === undefined || account.platform === filter.platform)
        .map(accountView),
    };
  }

  private async assertOwnsWorkspace(caller: Caller, workspaceId: string): Promise<void> {
    if (caller.user.workspaceIds.includes(workspaceId)) return;
    // The user record may be up to a minute old (key cache): a workspace created since is read fresh.
    const workspace = await this.deps.workspaces.getWorkspace(workspaceId);
    if (workspace?.userId === caller.userId) return;
    throw new ApiError('workspace_not_found', 'No workspace with this id is owned by the caller.', { param: 'workspaceId' });
  }
}
