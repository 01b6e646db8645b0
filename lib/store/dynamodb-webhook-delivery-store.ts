/**
 * The delivery worker's webhook store: the store, the one read only the worker makes (a message's
 * endpoint, deliveries and events together, with BatchGetItem), and its writes of deliveries (claims, their
 * release, attempt records, cancels) grouped when they come together (lib/store/coalesced-updates.ts):
 * a message's claims are one request, and the answers of its lanes are recorded a few at a time
 * instead of one request each. In its own module so the ten other functions on the webhook store do
 * not bundle BatchGetItem's ~6 kB (bench/bundle-ceilings.ts).
 */
import type { WebhookEndpoint } from '../domain/webhooks.js';
import type { DeliveryRecord, WebhookDeliveryReads, WebhookEventRecord } from '../use-cases/ports/webhooks.js';
import { batchGetAll } from './batch-get.js';
import { CoalescedUpdates } from './coalesced-updates.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EVENT_ITEM } from './dynamodb-event-store.js';
import { toDelivery } from './dynamodb-webhook-deliveries.js';
import { toEndpoint } from './dynamodb-webhook-endpoints.js';
import { DynamoDbWebhookStore } from './dynamodb-webhook-store.js';
import { readItem } from './item-schema.js';
import { webhookKeys } from './webhooks-table.js';

export class DynamoDbWebhookDeliveryStore extends DynamoDbWebhookStore implements WebhookDeliveryReads {
  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    super({
      ...options,
      conditionalWriter: (client) => {
        const updates = new CoalescedUpdates(client);
        return (update) => updates.write(update);
      },
    });
  }

  async readForDelivery(
    userId: string,
    endpointId: string,
    wanted: readonly { eventId: string; eventCreatedAt: string }[],
  ): Promise<{ endpoint: WebhookEndpoint | null; records: Map<string, { delivery: DeliveryRecord | null; event: WebhookEventRecord | null }> }> {
    const records = new Map<string, { delivery: DeliveryRecord | null; event: WebhookEventRecord | null }>();
    const unique = [...new Map(wanted.map((one) => [one.eventId, one])).values()];
    for (const one of unique) records.set(one.eventId, { delivery: null, event: null });
    // The endpoint, then two keys per event; the requests at once (a merged message has hundreds of
    // keys). The endpoint rides in the first: one request fewer for every message.
    const endpointKey = webhookKeys.endpoint(userId, endpointId);
    const keys = [endpointKey, ...unique.flatMap((one) => [webhookKeys.delivery(endpointId, one.eventCreatedAt, one.eventId), webhookKeys.event(one.eventId)])];
    let endpoint: WebhookEndpoint | null = null;
    for (const item of await batchGetAll(this.table.client, this.table.name, keys, { consistentRead: true, chunksAtOnce: true })) {
      if (typeof item.pk === 'string' && item.pk.startsWith('EVENT#')) {
        const event = readItem(EVENT_ITEM, item, `Webhook event ${item.pk}`);
        const entry = records.get(event.id);
        if (entry) entry.event = event;
      } else if (item.pk === endpointKey.pk && item.sk === endpointKey.sk) {
        endpoint = toEndpoint(item);
      } else {
        const delivery = toDelivery(item);
        const entry = records.get(delivery.eventId);
        if (entry && delivery.endpointId === endpointId) entry.delivery = delivery;
      }
    }
    return { endpoint, records };
  }
}
