/**
 * Workspaces in the directory table: the item under its owner (USER#<userId>/WORKSPACE#<id>), its
 * by-id twin (WORKSPACE#<id>/WORKSPACE) and the owner's workspaceIds (layout in lib/store/tables.ts).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import type { Workspace } from '../domain/model.js';
import type { WorkspaceAdmin, WorkspaceReader } from '../use-cases/ports/workspaces.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions } from './directory-table.js';

const WORKSPACE_ITEM = v.object({ id: v.string(), userId: v.string(), name: v.string(), createdAt: v.string() });

export class DynamoDbWorkspaceStore implements WorkspaceReader, WorkspaceAdmin {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getWorkspace(workspaceId: string): Promise<Workspace | null> {
    const item = await this.table.getItem(directoryKeys.workspace(workspaceId));
    return item ? readDirectoryItem(WORKSPACE_ITEM, item) : null;
  }

  /**
   * The workspace item, its by-id twin and the owner's workspaceIds change in one transaction:
   * auth and create read workspaceIds off the user, so a workspace must never exist without
   * being listed there (nor the other way round). The user must exist.
   */
  async putWorkspace(workspace: Workspace): Promise<void> {
    const attributes = { type: 'workspace', id: workspace.id, userId: workspace.userId, name: workspace.name, createdAt: workspace.createdAt };
    const tableName = this.table.name;
    try {
      await this.table.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: { ...directoryKeys.userWorkspace(workspace.userId, workspace.id), ...attributes },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: { ...directoryKeys.workspace(workspace.id), ...attributes },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: directoryKeys.user(workspace.userId),
                UpdateExpression: 'SET workspaceIds = list_append(if_not_exists(workspaceIds, :none), :added)',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':none': [], ':added': [workspace.id] },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const reasons = error.CancellationReasons ?? [];
        if (reasons[2]?.Code === 'ConditionalCheckFailed') {
          throw new DirectoryRecordNotFoundError('user', workspace.userId, { cause: error });
        }
        if (reasons[0]?.Code === 'ConditionalCheckFailed' || reasons[1]?.Code === 'ConditionalCheckFailed') {
          throw new DirectoryRecordExistsError('workspace', workspace.id, { cause: error });
        }
      }
      throw error;
    }
  }
}
