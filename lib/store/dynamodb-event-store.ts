/**
 * The events of the webhooks table (tables.ts): each under its id and in its user's list (the
 * byUserEvents index), written by the router (dynamodb-webhook-routing-store.ts) and the test
 * action, put only if absent so the first write wins; read back by id (GetItem) and as a user's
 * list newest first (Query; a `type` filter is a FilterExpression on that Query, so a page reads
 * at most MAX_READS_PER_PAGE index pages however few events match).
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { PageKey } from '../domain/cursor.js';
import type { EventTypeFilter } from '../domain/events.js';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks.js';
import type { EventStore } from '../use-cases/ports/events.js';
import type { WebhookEventRecord } from '../use-cases/ports/webhooks.js';
import { isConditionFailure } from './directory-table.js';
import { readItem } from './item-schema.js';
import { WebhooksTable, webhookKeys, webhookRecordExpiresAt, type WebhooksTableOptions } from './webhooks-table.js';

export const EVENT_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  // Every type the router emits, and the test action's.
  type: v.picklist([...WEBHOOK_EVENT_TYPES, 'webhook.test'] as const),
  createdAt: v.string(),
  body: v.string(),
});

/** An event's place in its user's list (the byUserEvents index): by time, then id. */
export function eventListKeys(event: Pick<WebhookEventRecord, 'userId' | 'createdAt' | 'id'>): { eventsPk: string; eventsSk: string } {
  return { eventsPk: `USER#${event.userId}`, eventsSk: `${event.createdAt}#${event.id}` };
}


const INDEX = 'byUserEvents';
/** Index pages one list page reads at most when a type filter leaves most events out. */
const MAX_READS_PER_PAGE = 4;

function invalidPageKey(): Error {
  return Object.assign(new Error('page key not of this list'), { code: 'invalid_page_key' });
}

export class DynamoDbEventStore implements EventStore {
  private readonly table: WebhooksTable;

  constructor(options: WebhooksTableOptions | WebhooksTable = {}) {
    this.table = options instanceof WebhooksTable ? options : new WebhooksTable(options);
  }

  /** The event by id; strongly consistent for the webhook paths that read it right after writing it. */
  async getEvent(eventId: string, options: { consistentRead?: boolean } = {}): Promise<WebhookEventRecord | null> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.name, Key: webhookKeys.event(eventId), ...(options.consistentRead ? { ConsistentRead: true } : {}) }),
    );
    return out.Item ? readItem(EVENT_ITEM, out.Item, `Webhook event ${eventId}`) : null;
  }

  async putEvent(event: WebhookEventRecord): Promise<WebhookEventRecord> {
    try {
      await this.table.client.send(
        new PutCommand({
          TableName: this.table.name,
          Item: this.eventItem(event),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return event;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The first write wins: a replay uses the event as it was first written.
      const existing = await this.getEvent(event.id, { consistentRead: true });
      if (!existing) throw error;
      return existing;
    }
  }

  /** An event's item as stored: under its id, and in its user's list (byUserEvents) newest first. */
  eventItem(event: WebhookEventRecord): Record<string, unknown> {
    return { ...webhookKeys.event(event.id), ...event, ...eventListKeys(event), expiresAt: webhookRecordExpiresAt(new Date(event.createdAt)) };
  }

  async listEvents(
    userId: string,
    page: { limit: number; startKey: PageKey | null; since: string; type: EventTypeFilter | null },
  ): Promise<{ events: WebhookEventRecord[]; nextKey: PageKey | null }> {
    const { eventsPk } = eventListKeys({ userId, createdAt: '', id: '' });
    if (page.startKey !== null && (page.startKey.eventsPk !== eventsPk || !/^EVENT#/.test(page.startKey.pk ?? ''))) throw invalidPageKey();
    const filter =
      page.type === null
        ? {}
        : 'exact' in page.type
          ? { FilterExpression: '#type = :type', ExpressionAttributeNames: { '#type': 'type' } }
          : { FilterExpression: 'begins_with(#type, :type)', ExpressionAttributeNames: { '#type': 'type' } };
    const typeValue = page.type === null ? {} : { ':type': 'exact' in page.type ? page.type.exact : page.type.prefix };
    const events: WebhookEventRecord[] = [];
    let startKey = page.startKey;
    for (let reads = 0; reads < MAX_READS_PER_PAGE && events.length < page.limit; reads += 1) {
      const out = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          IndexName: INDEX,
          // Only what is younger than the retention: TTL deletes an expired event only within days.
          KeyConditionExpression: 'eventsPk = :pk AND eventsSk > :since',
          ...filter,
          ExpressionAttributeValues: { ':pk': eventsPk, ':since': page.since, ...typeValue },
          ScanIndexForward: false,
          Limit: page.limit - events.length,
          ...(startKey === null ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
      events.push(...(out.Items ?? []).map((item) => readItem(EVENT_ITEM, item, `Event ${String(item.pk)}`)));
      const last = out.LastEvaluatedKey;
      startKey = last ? { pk: String(last.pk), sk: String(last.sk), eventsPk: String(last.eventsPk), eventsSk: String(last.eventsSk) } : null;
      if (startKey === null) break;
    }
    return { events, nextKey: startKey };
  }
}
