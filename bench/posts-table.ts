/** Posts read straight from DynamoDB (not through the API), to see how a load ended. */
import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Post } from '../lib/domain/model.js';
import { itemToPost, POST_INDEXES, statusPartitionKey } from '../lib/store/post-item.js';

export async function countByStatus(db: DynamoDBClient, table: string, userId: string, status: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, never> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: POST_INDEXES.byUserStatus,
        KeyConditionExpression: 'statusPk = :pk',
        ExpressionAttributeValues: { ':pk': { S: statusPartitionKey(userId, status) } },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    count += out.Count ?? 0;
    startKey = out.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return count;
}

export async function postsOf(db: DynamoDBClient, table: string, userId: string): Promise<Post[]> {
  const posts: Post[] = [];
  let startKey: Record<string, never> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: table,
        IndexName: POST_INDEXES.byUser,
        KeyConditionExpression: 'listPk = :pk',
        ExpressionAttributeValues: { ':pk': { S: userId } },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) posts.push(itemToPost(unmarshall(item)));
    startKey = out.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return posts;
}
