import type { Workspace } from '../../domain/model.js';

/** Workspace lookup by id alone (the admin CLI's `account connect --workspace W` names no user). */
export interface WorkspaceReader {
  getWorkspace(workspaceId: string): Promise<Workspace | null>;
}

/** Writes of the account-settings stand-in: a workspace and its link on the user. */
export interface WorkspaceAdmin {
  /** With `max`: refused (DirectoryLimitError, nothing written) when the user has that many already, checked in the write. */
  putWorkspace(workspace: Workspace, options?: { max?: number }): Promise<void>;
}
