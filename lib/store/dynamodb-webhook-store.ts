/**
 * The webhooks table's stores together, as the webhook use cases take them (WebhookStore): one
 * store per record kind on one table (lib/store/webhooks-table.ts): endpoints
 * (dynamodb-webhook-endpoints.ts), events (dynamodb-event-store.ts), deliveries and their outbox
 * (dynamodb-webhook-deliveries.ts), an endpoint's in-flight slots (dynamodb-webhook-slots.ts).
 * The router's and the delivery worker's stores add their own batch writes and reads to it.
 */
import type { PageKey } from '../domain/cursor.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import type { WebhookEndpoint } from '../domain/webhooks.js';
import type {
  DeliveryAttempt,
  DeliveryRecord,
  DeliveryStatus,
  EndpointChanges,
  PendingDeliveries,
  PendingDeliveryEntry,
  WebhookEventRecord,
  WebhookStore,
} from '../use-cases/ports/webhooks.js';
import { DynamoDbEventStore } from './dynamodb-event-store.js';
import { DynamoDbWebhookDeliveries } from './dynamodb-webhook-deliveries.js';
import { DynamoDbWebhookEndpoints } from './dynamodb-webhook-endpoints.js';
import { DynamoDbWebhookSlots } from './dynamodb-webhook-slots.js';
import { WebhooksTable, type WebhooksTableOptions } from './webhooks-table.js';

export class DynamoDbWebhookStore implements WebhookStore, PendingDeliveries {
  protected readonly table: WebhooksTable;
  protected readonly endpoints: DynamoDbWebhookEndpoints;
  protected readonly events: DynamoDbEventStore;
  protected readonly deliveries: DynamoDbWebhookDeliveries;
  protected readonly slots: DynamoDbWebhookSlots;

  constructor(options: WebhooksTableOptions = {}) {
    this.table = new WebhooksTable(options);
    this.endpoints = new DynamoDbWebhookEndpoints(this.table);
    this.events = new DynamoDbEventStore(this.table);
    this.deliveries = new DynamoDbWebhookDeliveries(this.table);
    this.slots = new DynamoDbWebhookSlots(this.table);
  }

  createEndpoint(endpoint: WebhookEndpoint, remember: IdempotencyCompletion | null = null): Promise<'created' | 'limit_reached'> {
    return this.endpoints.createEndpoint(endpoint, remember);
  }

  getEndpoint(userId: string, endpointId: string): Promise<WebhookEndpoint | null> {
    return this.endpoints.getEndpoint(userId, endpointId);
  }

  listEndpoints(userId: string, page: { limit: number; startKey: PageKey | null }): Promise<{ endpoints: WebhookEndpoint[]; nextKey: PageKey | null }> {
    return this.endpoints.listEndpoints(userId, page);
  }

  allEndpoints(userId: string): Promise<WebhookEndpoint[]> {
    return this.endpoints.allEndpoints(userId);
  }

  updateEndpoint(userId: string, endpointId: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    return this.endpoints.updateEndpoint(userId, endpointId, changes, now);
  }

  replaceSecrets(after: WebhookEndpoint, readUpdatedAt: string, remember: IdempotencyCompletion | null): Promise<'applied' | 'changed'> {
    return this.endpoints.replaceSecrets(after, readUpdatedAt, remember);
  }

  disableEndpoint(userId: string, endpointId: string, reason: string, now: Date): Promise<boolean> {
    return this.endpoints.disableEndpoint(userId, endpointId, reason, now);
  }

  markFailing(userId: string, endpointId: string, now: Date): Promise<string | null> {
    return this.endpoints.markFailing(userId, endpointId, now);
  }

  clearFailing(userId: string, endpointId: string): Promise<void> {
    return this.endpoints.clearFailing(userId, endpointId);
  }

  deleteEndpoint(userId: string, endpointId: string): Promise<boolean> {
    return this.endpoints.deleteEndpoint(userId, endpointId);
  }

  putEvent(event: WebhookEventRecord): Promise<WebhookEventRecord> {
    return this.events.putEvent(event);
  }

  /** Strongly consistent: the delivery paths read an event right after the router wrote it. */
  getEvent(eventId: string): Promise<WebhookEventRecord | null> {
    return this.events.getEvent(eventId, { consistentRead: true });
  }

  putDelivery(delivery: DeliveryRecord, remember: IdempotencyCompletion | null = null): Promise<boolean> {
    return this.deliveries.putDelivery(delivery, remember);
  }

  getDelivery(endpointId: string, eventCreatedAt: string, eventId: string): Promise<DeliveryRecord | null> {
    return this.deliveries.getDelivery(endpointId, eventCreatedAt, eventId);
  }

  recordAttempt(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'> & { attemptLog?: readonly DeliveryAttempt[] },
    attempt: number,
    claimToken: string,
    result: { entry: DeliveryAttempt; status: DeliveryStatus; nextAttemptAt: string | null },
  ): Promise<boolean> {
    return this.deliveries.recordAttempt(delivery, attempt, claimToken, result);
  }

  setDeliveryStatus(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId' | 'status' | 'attempts'>,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
  ): Promise<boolean> {
    return this.deliveries.setDeliveryStatus(delivery, status, nextAttemptAt);
  }

  claimAttempt(delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>, attempt: number, claim: { token: string; now: Date; until: Date }): Promise<boolean> {
    return this.deliveries.claimAttempt(delivery, attempt, claim);
  }

  releaseAttempt(delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>, token: string): Promise<void> {
    return this.deliveries.releaseAttempt(delivery, token);
  }

  listDeliveries(endpointId: string, limit: number): Promise<DeliveryRecord[]> {
    return this.deliveries.listDeliveries(endpointId, limit);
  }

  listPending(shard: number, options: { to: Date; limit: number }): Promise<PendingDeliveryEntry[]> {
    return this.deliveries.listPending(shard, options);
  }

  stampPending(entry: PendingDeliveryEntry, stamp: { now: Date; resendAt: Date }): Promise<DeliveryRecord | null> {
    return this.deliveries.stampPending(entry, stamp);
  }

  acquireSlots(endpointId: string, token: string, wanted: number, now: Date, until: Date): Promise<number[]> {
    return this.slots.acquireSlots(endpointId, token, wanted, now, until);
  }

  releaseSlot(endpointId: string, slot: number, token: string): Promise<void> {
    return this.slots.releaseSlot(endpointId, slot, token);
  }
}
