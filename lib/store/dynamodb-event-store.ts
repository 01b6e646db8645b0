/**
 * The events of the webhooks table (written by the router and the test action,
 * lib/store/dynamodb-webhook-store.ts eventItem), read back: by id (GetItem), and a user's list
 * newest first from the byUserEvents index (Query; a `type` filter is a FilterExpression on that
 * Query, so a page reads at most MAX_READS_PER_PAGE index pages however few events match).
 */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { PageKey } from '../domain/cursor.js';
import type { EventTypeFilter } from '../domain/events.js';
import type { EventStore } from '../use-cases/ports/events.js';
import type { WebhookEventRecord } from '../use-cases/ports/webhooks.js';
import { documentClient } from './dynamo-client.js';
import { EVENT_ITEM, eventListKeys, keys } from './dynamodb-webhook-store.js';
import { readItem } from './item-schema.js';
import { WEBHOOKS_TABLE } from './tables.js';

const INDEX = 'byUserEvents';
/** Index pages one list page reads at most when a type filter leaves most events out. */
const MAX_READS_PER_PAGE = 4;

function invalidPageKey(): Error {
  return Object.assign(new Error('page key not of this list'), { code: 'invalid_page_key' });
}

export class DynamoDbEventStore implements EventStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(WEBHOOKS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async getEvent(eventId: string): Promise<WebhookEventRecord | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.event(eventId) }));
    return out.Item ? readItem(EVENT_ITEM, out.Item, `Event ${eventId}`) : null;
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
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
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
