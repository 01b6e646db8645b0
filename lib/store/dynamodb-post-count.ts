/**
 * The Overview page's post figures: how many live posts the user has (one Query with Select
 * COUNT on the byUser index, stopped at a cap so a user with a million posts costs a bounded read)
 * and how much of the plan allowance this cycle has used (the allowance counter the create path
 * spends, one GetItem).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { countQuery } from './count-query.js';
import type { PostCounter } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { DynamoDbAllowanceReader } from './allowance-counter.js';
import { COUNTERS_TABLE, POSTS_TABLE } from './tables.js';

export class DynamoDbPostCounter implements PostCounter {
  private readonly postsTable: string;
  private readonly countersTable: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { postsTable?: string; countersTable?: string; client?: DynamoDBDocumentClient } = {}) {
    this.postsTable = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.countersTable = options.countersTable ?? requireEnv(COUNTERS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async countPosts(userId: string, cap: number): Promise<{ count: number; capped: boolean }> {
    const count = await countQuery(
      this.client,
      { TableName: this.postsTable, IndexName: 'byUser', KeyConditionExpression: 'listPk = :user', ExpressionAttributeValues: { ':user': userId } },
      cap,
    );
    return count > cap ? { count: cap, capped: true } : { count, capped: false };
  }

  allowanceUsed(userId: string, cycle: string): Promise<number> {
    return new DynamoDbAllowanceReader({ countersTable: this.countersTable, client: this.client }).allowanceUsed(userId, cycle);
  }
}
