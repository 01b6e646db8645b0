/**
 * Workspaces as the settings pages see them: listed from the owner's partition and renamed by
 * their owner only. Each workspace has two items (tables.ts: USER#<userId>/WORKSPACE#<wsId> and
 * WORKSPACE#<wsId>/WORKSPACE); a rename changes both in one transaction, each conditioned on the
 * owner, so another user's workspace id changes nothing. Creating one goes through
 * Provisioning.createWorkspace (the directory store's putWorkspace).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { Workspace } from '../domain/model.js';
import type { WorkspaceStore } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

export class DynamoDbWorkspaceStore implements WorkspaceStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async listWorkspaces(userId: string): Promise<Workspace[]> {
    const workspaces: Workspace[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
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
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET #name = :name',
        ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name, ':userId': userId },
      },
    });
    try {
      await this.client.send(
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
