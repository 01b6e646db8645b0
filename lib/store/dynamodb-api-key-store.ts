/**
 * API keys as the settings pages see them: a user's keys listed and counted through the byOwner
 * index (gsi1pk KEYS#<userId>, written by the directory store's putApiKey) and revoked only by
 * their owner. A key's last use lives in the counters table (dynamodb-key-use-store.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { ApiKeyRecord } from '../domain/model.js';
import type { ApiKeyStore, ApiKeySummary } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

const BY_OWNER_INDEX = 'byOwner';

/** The byOwner partition of a user's keys (never USER#..., which is the accounts' partition there). */
export function apiKeyOwnerIndexKeys(key: Pick<ApiKeyRecord, 'userId' | 'createdAt' | 'id'>): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `KEYS#${key.userId}`, gsi1sk: `${key.createdAt}#${key.id}` };
}

function nullableString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export class DynamoDbApiKeyStore implements ApiKeyStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async listApiKeys(userId: string): Promise<ApiKeySummary[]> {
    const keys: ApiKeySummary[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: 'gsi1pk = :owner',
          ExpressionAttributeValues: { ':owner': `KEYS#${userId}` },
          // Only what the page shows: never the secret hash.
          ProjectionExpression: 'id, createdAt, revokedAt, userId',
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.userId !== userId || typeof item.id !== 'string' || typeof item.createdAt !== 'string') continue;
        keys.push({ id: item.id, createdAt: item.createdAt, revokedAt: nullableString(item.revokedAt) });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return keys;
  }

  async countActiveApiKeys(userId: string): Promise<number> {
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: 'gsi1pk = :owner',
          FilterExpression: 'attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: { ':owner': `KEYS#${userId}` },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      count += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return count;
  }

  async revokeOwnedApiKey(userId: string, keyId: string, revokedAt: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `KEY#${keyId}`, sk: 'KEY' },
          // Revoking twice keeps the first time (as the admin CLI's revoke).
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
          ExpressionAttributeValues: { ':revokedAt': revokedAt, ':userId': userId },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
