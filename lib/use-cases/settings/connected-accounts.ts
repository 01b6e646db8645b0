/**
 * The accounts page's read: the signed-in user's workspaces, each with its connected accounts
 * (one Query for workspaces, one on byOwner for accounts, both keyed by the user's own id), and
 * what each tokenHealth means for the person and whether Reconnect is offered.
 */
import type { Account, TokenHealth, Workspace } from '../../domain/model.js';
import type { AccountReader } from '../ports/accounts.js';
import type { WorkspaceStore } from './ports.js';

export interface WorkspaceAccounts {
  workspace: Workspace;
  accounts: Account[];
}

/** decisions.md's tokenHealth values, in words, and whether the person should reconnect. */
export const TOKEN_HEALTH_MEANING: Record<TokenHealth, { label: string; meaning: string; reconnect: boolean }> = {
  healthy: { label: 'Healthy', meaning: 'Connected: posts go out.', reconnect: false },
  expiring: { label: 'Expiring', meaning: 'Access ends within 7 days and cannot be refreshed: reconnect soon.', reconnect: true },
  needs_reauth: { label: 'Needs reconnecting', meaning: 'The platform no longer accepts this connection (expired or revoked): posts fail until you reconnect.', reconnect: true },
  refresh_failed: { label: 'Refresh failed', meaning: 'The last attempt to refresh access failed: reconnect to keep posting.', reconnect: true },
};

export class ListConnectedAccounts {
  constructor(private readonly deps: { workspaces: Pick<WorkspaceStore, 'listWorkspaces'>; accounts: Pick<AccountReader, 'listAccounts'> }) {}

  async execute(userId: string): Promise<WorkspaceAccounts[]> {
    const [workspaces, accounts] = await Promise.all([this.deps.workspaces.listWorkspaces(userId), this.deps.accounts.listAccounts(userId, {})]);
    return workspaces.map((workspace) => ({ workspace, accounts: accounts.filter((account) => account.workspaceId === workspace.id) }));
  }
}
