/**
 * The one BatchGetItem read of many keys: chunks of BatchGetItem's own ceiling, and the keys
 * DynamoDB leaves unprocessed (it does when the table throttles) asked again after the same backoff
 * every store's retry takes (transaction-backoff.ts). Every store reading keys in batches goes
 * through it, so they chunk, retry and give up alike.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyError } from '../domain/errors.js';
import { backoff } from './transaction-backoff.js';

export type BatchKey = Record<string, unknown>;
export type BatchItem = Record<string, unknown>;

/** BatchGetItem's own ceiling per request. */
export const BATCH_GET_LIMIT = 100;
/** Requests for one chunk's keys before the read gives up on those DynamoDB keeps leaving unprocessed. */
export const BATCH_GET_ATTEMPTS = 8;

export interface BatchGetOptions {
  consistentRead?: boolean;
  /**
   * What keys still unprocessed after the last attempt mean: `fail` (default) throws a
   * DependencyError, so a worker's message is handed over again and an API call answers the
   * generic 500; `absent` treats them as missing, for a read that only decorates (a key's "last used").
   */
  whenUnprocessed?: 'fail' | 'absent';
  /**
   * Read the chunks of BATCH_GET_LIMIT keys at once rather than one after another: for a read
   * that a request waits on (a merged webhook message's hundreds of keys); a read of thousands of
   * keys keeps the default and asks DynamoDB one chunk at a time.
   */
  chunksAtOnce?: boolean;
}

/** Every item found for `keys`, in no particular order; a key with no item is simply absent. */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  table: string,
  keys: readonly BatchKey[],
  options: BatchGetOptions = {},
): Promise<BatchItem[]> {
  const chunks: BatchKey[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) chunks.push(keys.slice(start, start + BATCH_GET_LIMIT));
  if (options.chunksAtOnce) return (await Promise.all(chunks.map((chunk) => readChunk(client, table, chunk, options)))).flat();
  const found: BatchItem[] = [];
  for (const chunk of chunks) found.push(...(await readChunk(client, table, chunk, options)));
  return found;
}

/** One chunk's items, the keys DynamoDB leaves unprocessed asked again after a backoff. */
async function readChunk(client: DynamoDBDocumentClient, table: string, chunk: BatchKey[], options: BatchGetOptions): Promise<BatchItem[]> {
  const found: BatchItem[] = [];
  let pending = chunk;
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt === BATCH_GET_ATTEMPTS) {
      if (options.whenUnprocessed === 'absent') break;
      throw new DependencyError(`DynamoDB left ${pending.length} keys of ${table} unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
    }
    if (attempt > 0) await backoff(attempt);
    const out = await client.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ...(options.consistentRead ? { ConsistentRead: true } : {}) } } }),
    );
    found.push(...(out.Responses?.[table] ?? []));
    pending = out.UnprocessedKeys?.[table]?.Keys ?? [];
  }
  return found;
}
