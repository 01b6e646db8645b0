/**
 * Connected accounts as the settings pages see them: counted through the byOwner index and
 * disconnected by their owner only. Disconnecting deletes the account item and its CREDENTIALS
 * item (the encrypted tokens) in one transaction conditioned on the owner: the tokens never
 * outlive the account, and another user's account id changes nothing. A post still scheduled to
 * a disconnected account fails at publish time like one whose account went away.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { AccountStore } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

export class DynamoDbAccountStore implements AccountStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async countAccounts(userId: string): Promise<number> {
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'byOwner',
          KeyConditionExpression: 'gsi1pk = :owner',
          ExpressionAttributeValues: { ':owner': `USER#${userId}` },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      count += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return count;
  }

  async disconnectAccount(userId: string, accountId: string): Promise<boolean> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' },
                ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
                ExpressionAttributeValues: { ':userId': userId },
              },
            },
            { Delete: { TableName: this.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'CREDENTIALS' } } },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }
}
