import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DependencyError } from '../../../lib/domain/errors.js';
import { BATCH_GET_ATTEMPTS, BATCH_GET_LIMIT, batchGetAll, type BatchKey } from '../../../lib/store/batch-get.js';

const TABLE = 'things';

/**
 * A client answering BatchGetItem from a map, processing at most `perRequest` keys of each request
 * and handing back the rest as UnprocessedKeys, as DynamoDB does when the table throttles.
 */
function throttledClient(stored: Map<string, Record<string, unknown>>, perRequest: number) {
  const requests: { keys: BatchKey[]; consistent: boolean | undefined }[] = [];
  const client = {
    send: (command: unknown) => {
      if (!(command instanceof BatchGetCommand)) throw new Error('only BatchGetItem is expected');
      const request = command.input.RequestItems?.[TABLE];
      const keys = (request?.Keys ?? []) as BatchKey[];
      requests.push({ keys, consistent: request?.ConsistentRead });
      const processed = keys.slice(0, perRequest);
      const rest = keys.slice(perRequest);
      return Promise.resolve({
        Responses: { [TABLE]: processed.flatMap((key) => stored.get(String(key.id)) ?? []) },
        UnprocessedKeys: rest.length > 0 ? { [TABLE]: { Keys: rest } } : {},
      });
    },
  };
  return { client: client as unknown as DynamoDBDocumentClient, requests };
}

const idsOf = (items: Record<string, unknown>[]) => items.map((item) => String(item.id)).sort();

describe('batchGetAll', () => {
  const stored = new Map(Array.from({ length: 250 }, (_, index) => [`k${index}`, { id: `k${index}`, n: index }]));

  it('reads every key in chunks of BatchGetItem ceiling, missing keys absent', async () => {
    const { client, requests } = throttledClient(stored, Number.POSITIVE_INFINITY);
    const keys = [...stored.keys(), 'missing'].map((id) => ({ id }));
    const found = await batchGetAll(client, TABLE, keys, { consistentRead: true });
    expect(idsOf(found)).toEqual([...stored.keys()].sort());
    expect(requests.map((one) => one.keys.length)).toEqual([BATCH_GET_LIMIT, BATCH_GET_LIMIT, 51]);
    expect(requests.every((one) => one.consistent === true)).toBe(true);
    expect(await batchGetAll(client, TABLE, [])).toEqual([]);
  });

  it('asks again for the keys DynamoDB left unprocessed until all are read', async () => {
    const { client, requests } = throttledClient(stored, 30);
    const keys = [...stored.keys()].slice(0, 120).map((id) => ({ id }));
    const found = await batchGetAll(client, TABLE, keys);
    expect(idsOf(found)).toEqual(keys.map((key) => key.id).sort());
    // 100 keys at 30 a request, then the remaining 20.
    expect(requests.map((one) => one.keys.length)).toEqual([100, 70, 40, 10, 20]);
    expect(requests.every((one) => one.consistent === undefined)).toBe(true);
  });

  it('fails with a DependencyError when keys stay unprocessed after the last attempt', async () => {
    const { client, requests } = throttledClient(stored, 1);
    const keys = [...stored.keys()].slice(0, 20).map((id) => ({ id }));
    await expect(batchGetAll(client, TABLE, keys)).rejects.toBeInstanceOf(DependencyError);
    expect(requests).toHaveLength(BATCH_GET_ATTEMPTS);
  });

  it('treats keys still unprocessed as absent when asked to', async () => {
    const { client, requests } = throttledClient(stored, 1);
    const keys = [...stored.keys()].slice(0, 20).map((id) => ({ id }));
    const found = await batchGetAll(client, TABLE, keys, { whenUnprocessed: 'absent' });
    expect(idsOf(found)).toEqual(keys.slice(0, BATCH_GET_ATTEMPTS).map((key) => key.id).sort());
    expect(requests).toHaveLength(BATCH_GET_ATTEMPTS);
  });
});
