/**
 * How many items a Query matches, with Select COUNT (no item is sent back) page by page: a COUNT
 * page stops at 1 MB read like any other. With `cap`, it stops once more than `cap` were counted
 * (the settings overview shows "1,000+" rather than reading a whole index).
 */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export async function countQuery(
  client: DynamoDBDocumentClient,
  query: Omit<QueryCommandInput, 'Select' | 'ExclusiveStartKey' | 'Limit'>,
  cap = Number.POSITIVE_INFINITY,
): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: startKey, ...(Number.isFinite(cap) ? { Limit: cap - count + 1 } : {}) }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && count <= cap);
  return count;
}
