/**
 * The one TransactWriteItems loop of the stores: the transaction is sent, and sent again after the
 * shared backoff (transaction-backoff.ts) while DynamoDB cancels it for TransactionConflict alone
 * (another write held one of its items at that moment: nothing was written, so it is safe to
 * repeat). The store reads the cancellation's per-item codes first (`cancelled`): a condition of
 * its own that failed is its answer (or its error), never a retry.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backoff } from './transaction-backoff.js';

export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** Each item's cancellation code, in the transaction's order (`None` for the items that were fine). */
export function cancellationCodes(error: TransactionCanceledException): (string | undefined)[] {
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

export interface TransactOptions<T> {
  /** Sends at most this many times. */
  attempts: number;
  /** The answer once written. */
  written: T;
  /** The answer to a cancellation by one of the store's own conditions (it may throw instead); undefined: only the retry rule applies. */
  cancelled?: (codes: readonly (string | undefined)[], error: TransactionCanceledException) => T | undefined;
  /** What is thrown for a cancellation that is neither answered nor a conflict still to retry (default: DynamoDB's own error). */
  giveUp?: (error: TransactionCanceledException) => Error;
}

export async function transactWithRetry<T>(client: DynamoDBDocumentClient, items: TransactItem[], options: TransactOptions<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: items }));
      return options.written;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = cancellationCodes(error);
      const answer = options.cancelled?.(codes, error);
      if (answer !== undefined) return answer;
      if (!codes.includes('TransactionConflict') || attempt >= options.attempts) throw options.giveUp?.(error) ?? error;
      await backoff(attempt);
    }
  }
}
