/**
 * The one wait before DynamoDB is asked again: a transaction it cancelled with TransactionConflict
 * (another write held one of its items at that moment), or the keys a BatchGetItem left unprocessed
 * (batch-get.ts). Every store's retry takes it, so they back off alike.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Full jitter: concurrent requests that conflicted do not retry in lock step. */
export function backoff(attempt: number): Promise<void> {
  return sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
}
