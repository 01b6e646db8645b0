/**
 * Workspaces and their connected accounts as the settings page shows them: the user's
 * workspaces (oldest first) each with its accounts, creating and renaming a workspace, and
 * disconnecting an account. Every call names the signed-in user; another user's workspace or
 * account id is "not found" and changes nothing (the stores' writes are conditioned on the owner).
 * Connecting and reconnecting accounts live beside this (the platforms' OAuth flows).
 */
import type { Account, Workspace } from '../../domain/model.js';
import { DirectoryLimitError } from '../../domain/directory-errors.js';
import { newId } from '../../domain/ids.js';
import type { Caller } from '../../domain/caller.js';
import type { AccountReader } from '../ports/accounts.js';
import type { Clock } from '../ports/clock.js';
import type { WorkspaceAdmin } from '../ports/workspaces.js';
import type { AccountStore, WorkspaceStore } from './ports.js';

/** A user with more workspaces than this is almost certainly a script gone wrong. */
export const MAX_WORKSPACES = 50;
const MAX_NAME_LENGTH = 100;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const WORKSPACE_ID = /^ws_[0-9A-Za-z]{20}$/;
const ACCOUNT_ID = /^acct_[0-9A-Za-z]{20}$/;

export class SettingsInputError extends Error {
  readonly code = 'settings_input_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'SettingsInputError';
  }
}

export class SettingsRecordNotFoundError extends Error {
  readonly code = 'settings_record_not_found';
  constructor(readonly what: 'workspace' | 'account') {
    super(`No such ${what} in this account`);
    this.name = 'SettingsRecordNotFoundError';
  }
}

export interface WorkspaceWithAccounts extends Workspace {
  accounts: Account[];
}

/** What each tokenHealth means for the person reading the page (decisions.md, Accounts). */
export const TOKEN_HEALTH_MEANING: Record<Account['tokenHealth'], string> = {
  healthy: 'Connected: posts go out.',
  expiring: 'Access ends within 7 days and cannot be renewed automatically: reconnect soon.',
  needs_reauth: 'Expired or revoked on the platform: posts to this account fail until you reconnect it.',
  refresh_failed: 'The last attempt to renew access failed: reconnect it before posting.',
};

export function workspaceName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  if (name === '' || name.length > MAX_NAME_LENGTH || CONTROL_CHARACTERS.test(name)) {
    throw new SettingsInputError(`A workspace name is 1 to ${MAX_NAME_LENGTH} printable characters.`);
  }
  return name;
}

export class ManageWorkspaces {
  constructor(
    private readonly deps: {
      workspaces: WorkspaceStore;
      accounts: AccountReader;
      disconnect: AccountStore;
      writer: Pick<WorkspaceAdmin, 'putWorkspace'>;
      clock: Clock;
    },
  ) {}

  async list(caller: Caller): Promise<WorkspaceWithAccounts[]> {
    const [workspaces, accounts] = await Promise.all([this.deps.workspaces.listWorkspaces(caller.userId), this.deps.accounts.listAccounts(caller.userId, {})]);
    return workspaces.map((workspace) => ({ ...workspace, accounts: accounts.filter((account) => account.workspaceId === workspace.id) }));
  }

  async create(caller: Caller, rawName: string | undefined): Promise<Workspace> {
    const name = workspaceName(rawName);
    const tooMany = new SettingsInputError(`You can have at most ${MAX_WORKSPACES} workspaces.`);
    // The caller's copy of the user saves a write in the common case; the write's condition is the check.
    if (caller.user.workspaceIds.length >= MAX_WORKSPACES) throw tooMany;
    const workspace: Workspace = { id: newId('ws'), userId: caller.userId, name, createdAt: this.deps.clock.now().toISOString() };
    try {
      await this.deps.writer.putWorkspace(workspace, { max: MAX_WORKSPACES });
    } catch (error) {
      if (error instanceof DirectoryLimitError) throw tooMany;
      throw error;
    }
    return workspace;
  }

  async rename(caller: Caller, workspaceId: string, rawName: string | undefined): Promise<void> {
    const name = workspaceName(rawName);
    if (!WORKSPACE_ID.test(workspaceId) || !(await this.deps.workspaces.renameWorkspace(caller.userId, workspaceId, name))) {
      throw new SettingsRecordNotFoundError('workspace');
    }
  }

  async account(caller: Caller, accountId: string): Promise<Account> {
    const account = ACCOUNT_ID.test(accountId) ? await this.deps.accounts.getAccount(accountId) : null;
    if (!account || account.userId !== caller.userId) throw new SettingsRecordNotFoundError('account');
    return account;
  }

  async disconnect(caller: Caller, accountId: string): Promise<void> {
    if (!ACCOUNT_ID.test(accountId) || !(await this.deps.disconnect.disconnectAccount(caller.userId, accountId))) {
      throw new SettingsRecordNotFoundError('account');
    }
  }
}
