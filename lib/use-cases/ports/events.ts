import type { PageKey } from '../../domain/cursor.js';
import type { EventTypeFilter } from '../../domain/events.js';
import type { WebhookEventRecord } from './webhooks.js';

/** A user's events as recorded by the webhook router and the test action (GET /events). */
export interface EventStore {
  /**
   * The user's events created after `since`, newest first, `type` filtered; at most `limit`, and
   * the key to continue from (null at the end). A page may hold fewer than `limit` when a filter
   * left many out: its key then continues the list.
   */
  listEvents(
    userId: string,
    page: { limit: number; startKey: PageKey | null; since: string; type: EventTypeFilter | null },
  ): Promise<{ events: WebhookEventRecord[]; nextKey: PageKey | null }>;
  getEvent(eventId: string): Promise<WebhookEventRecord | null>;
}
