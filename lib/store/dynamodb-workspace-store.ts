/**
 * Workspaces in the directory table: the item under its owner (USER#<userId>/WORKSPACE#<id>), its
 * by-id twin (WORKSPACE#<id>/WORKSPACE) and the owner's workspaceIds (layout in lib/store/tables.ts).
 * The settings pages list a user's workspaces from the owner's partition and rename both items in
 * one transaction conditioned on the owner, so another user's workspace id changes nothing.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DirectoryLimitError, DirectoryRecordExistsError, DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import type { Workspace } from '../domain/model.js';
import type { WorkspaceAdmin, WorkspaceReader } from '../use-cases/ports/workspaces.js';
import type { WorkspaceStore } from '../use-cases/settings/ports.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions } from './directory-table.js';

const WORKSPACE_ITEM = v.object({ id: v.string(), userId: v.string(), name: v.string(), createdAt: v.string() });

export class DynamoDbWorkspaceStore implements WorkspaceReader, WorkspaceAdmin, WorkspaceStore {
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
   * being listed there (nor the other way round). The user must exist. With `max`, the user may
   * list at most that many (DirectoryLimitError otherwise, nothing written).
   */
  async putWorkspace(workspace: Workspace, options: { max?: number } = {}): Promise<void> {
    const max = options.max;
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
                // The cap is this write's condition, so concurrent creations can never pass it together.
                ConditionExpression: max === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND (attribute_not_exists(workspaceIds) OR size(workspaceIds) < :max)',
                ExpressionAttributeValues: { ':none': [], ':added': [workspace.id], ...(max === undefined ? {} : { ':max': max }) },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const reasons = error.CancellationReasons ?? [];
        if (reasons[2]?.Code === 'ConditionalCheckFailed') {
          // The profile answered: its list is at the cap. No profile at all: no such user.
          if (reasons[2].Item) throw new DirectoryLimitError('workspace', max ?? 0, { cause: error });
          throw new DirectoryRecordNotFoundError('user', workspace.userId, { cause: error });
        }
        if (reasons[0]?.Code === 'ConditionalCheckFailed' || reasons[1]?.Code === 'ConditionalCheckFailed') {
          throw new DirectoryRecordExistsError('workspace', workspace.id, { cause: error });
        }
      }
      throw error;
    }
  }

  async listWorkspaces(userId: string): Promise<Workspace[]> {
    const workspaces: Workspace[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'WORKSPACE#' },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (typeof item.id !== 'string' || typeof item.name !== 'string' || typeof item.createdAt !== 'string') continue;
        workspaces.push({ id: item.id, userId, name: item.name, createdAt: item.createdAt });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return workspaces.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  }

  async renameWorkspace(userId: string, workspaceId: string, name: string): Promise<boolean> {
    const update = (key: Record<string, string>) => ({
      Update: {
        TableName: this.table.name,
        Key: key,
        UpdateExpression: 'SET #name = :name',
        ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name, ':userId': userId },
      },
    });
    try {
      await this.table.client.send(
        new TransactWriteCommand({
          TransactItems: [update({ pk: `USER#${userId}`, sk: `WORKSPACE#${workspaceId}` }), update({ pk: `WORKSPACE#${workspaceId}`, sk: 'WORKSPACE' })],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed')) {
        return false;
      }
      throw error;
    }
  }
}
