/**
 * The one wait before a transaction is tried again after DynamoDB cancelled it with
 * TransactionConflict (another write held one of its items at that moment): every store's
 * conflict retry takes it, so they back off alike.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Full jitter: concurrent requests that conflicted do not retry in lock step. */
export function backoff(attempt: number): Promise<void> {
  return sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
}
