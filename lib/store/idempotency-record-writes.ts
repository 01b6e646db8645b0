/**
 * The writes of an idempotency record that other stores make inside their own transactions
 * (completing it with the post's create or change, or with a webhook endpoint's write), and the
 * record's key. Plain objects, no client: a store that completes records carries none of the
 * claiming store (dynamodb-idempotency-store.ts, where the record's layout and timeline are told).
 */
import type { IdempotencyLock, IdempotentResponse } from '../domain/idempotency-record.js';

/** The request's lock on its idempotency key was lost (it ran past the lock's expiry): nothing was written. */
export class IdempotencyLockLostError extends Error {
  readonly code = 'idempotency_lock_lost';
  constructor() {
    super('The idempotency record is no longer held by this request; nothing was written');
    this.name = 'IdempotencyLockLostError';
  }
}

export function idempotencyRecordKey(userId: string, key: string): { pk: string } {
  return { pk: `USER#${userId}#${key}` };
}

/**
 * The Update that completes a record inside another transaction (a post's create or change, a
 * webhook endpoint's write): only the request holding the lock can complete it.
 */
export function idempotencyCompletionUpdate(tableName: string, lock: IdempotencyLock, response: IdempotentResponse) {
  return {
    TableName: tableName,
    Key: idempotencyRecordKey(lock.userId, lock.key),
    UpdateExpression: 'SET #status = :completed, responseStatus = :responseStatus, responseBody = :responseBody REMOVE lockExpiresAt',
    ConditionExpression: '#status = :inProgress AND lockToken = :lockToken',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':completed': 'completed',
      ':inProgress': 'in_progress',
      ':lockToken': lock.lockToken,
      ':responseStatus': response.status,
      ':responseBody': JSON.stringify(response.body),
    },
  };
}

/** Replaces the remembered response of a completed record (after some targets could not be queued). */
export function idempotencyResponseUpdate(tableName: string, lock: IdempotencyLock, response: IdempotentResponse) {
  return {
    TableName: tableName,
    Key: idempotencyRecordKey(lock.userId, lock.key),
    UpdateExpression: 'SET responseStatus = :responseStatus, responseBody = :responseBody',
    ConditionExpression: 'lockToken = :lockToken',
    ExpressionAttributeValues: {
      ':lockToken': lock.lockToken,
      ':responseStatus': response.status,
      ':responseBody': JSON.stringify(response.body),
    },
  };
}

/** Forgets a record this request holds (its final answer was not a 202). */
export function idempotencyRecordDelete(tableName: string, lock: IdempotencyLock) {
  return {
    TableName: tableName,
    Key: idempotencyRecordKey(lock.userId, lock.key),
    ConditionExpression: 'lockToken = :lockToken',
    ExpressionAttributeValues: { ':lockToken': lock.lockToken },
  };
}
