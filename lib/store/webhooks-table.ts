/**
 * The webhooks table (layout in tables.ts) as every webhook store uses it: its name and client,
 * the keys of its record kinds, their expiry, and the two writes every kind makes: a transaction
 * that completes the request's idempotency record with it, and one conditional update. One store
 * per record kind sits on it: endpoints (dynamodb-webhook-endpoints.ts), events
 * (dynamodb-event-store.ts), deliveries and their outbox (dynamodb-webhook-deliveries.ts), and an
 * endpoint's in-flight slots (dynamodb-webhook-slots.ts); dynamodb-webhook-store.ts is them together.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import { WEBHOOK_RECORD_TTL_SECONDS } from '../domain/webhooks.js';
import type { ConditionalUpdate } from './coalesced-updates.js';
import { writtenIfConditionHolds } from './directory-table.js';
import { documentClient } from './dynamo-client.js';
import { IdempotencyLockLostError, idempotencyCompletionUpdate } from './idempotency-record-writes.js';
import { IDEMPOTENCY_TABLE, WEBHOOKS_TABLE } from './tables.js';
import type { TransactItem } from './transactions.js';

export const webhookKeys = {
  endpoint: (userId: string, endpointId: string) => ({ pk: `USER#${userId}`, sk: `ENDPOINT#${endpointId}` }),
  endpointCount: (userId: string) => ({ pk: `USER#${userId}`, sk: 'ENDPOINTS' }),
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  delivery: (endpointId: string, eventCreatedAt: string, eventId: string) => ({
    pk: `ENDPOINT#${endpointId}`,
    sk: `DELIVERY#${eventCreatedAt}#${eventId}`,
  }),
  slot: (endpointId: string, slot: number) => ({ pk: `ENDPOINT#${endpointId}`, sk: `SLOT#${slot}` }),
};

/** When an event or a delivery made at `now` expires (the table's TTL, in seconds). */
export function webhookRecordExpiresAt(now: Date): number {
  return Math.floor(now.getTime() / 1000) + WEBHOOK_RECORD_TTL_SECONDS;
}

export interface WebhooksTableOptions {
  tableName?: string;
  idempotencyTable?: string;
  client?: DynamoDBDocumentClient;
  /**
   * How a conditional update is written: one request each by default; the delivery worker's
   * store groups the ones that come together (lib/store/dynamodb-webhook-delivery-store.ts).
   */
  conditionalWriter?: (client: DynamoDBDocumentClient) => (update: ConditionalUpdate) => Promise<boolean>;
}

export class WebhooksTable {
  readonly name: string;
  readonly client: DynamoDBDocumentClient;
  private idempotency: string | undefined;
  private readonly writer: (update: ConditionalUpdate) => Promise<boolean>;

  /** The idempotency table is read at its first use: only the API's endpoint writes complete records there. */
  constructor(options: WebhooksTableOptions = {}) {
    this.name = options.tableName ?? requireEnv(WEBHOOKS_TABLE.envVar);
    this.idempotency = options.idempotencyTable;
    this.client = options.client ?? documentClient;
    this.writer = options.conditionalWriter?.(this.client) ?? ((update) => this.updateOnce(update));
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  /**
   * `items` in one transaction, with the request's idempotency record completed as its last item
   * when it holds one. Answers the index of the item whose own condition failed (nothing written),
   * or -1 when all were written. The completion's condition failing means the lock ran out and
   * another request took the key: nothing written, IdempotencyLockLostError.
   */
  async transact(items: TransactItem[], remember: IdempotencyCompletion | null): Promise<number> {
    const completion = remember ? [{ Update: idempotencyCompletionUpdate(this.idempotencyTable, remember.lock, remember.response) }] : [];
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: [...items, ...completion] }));
      return -1;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const failed = (error.CancellationReasons ?? []).findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failed < 0) throw error;
      if (failed === items.length) throw new IdempotencyLockLostError();
      return failed;
    }
  }

  /** One conditional write (an attempt's claim, its release, its record, a status): true when written, false when its condition failed. */
  conditionalUpdate(update: ConditionalUpdate): Promise<boolean> {
    return this.writer(update);
  }

  private updateOnce(update: ConditionalUpdate): Promise<boolean> {
    return writtenIfConditionHolds(this.client.send(new UpdateCommand(update)));
  }
}
