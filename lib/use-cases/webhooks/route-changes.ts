/**
 * The webhook router: committed changes of posts and accounts (DynamoDB Streams records, read by
 * the function's adapter into `Change`s, in stream order) become events and deliveries.
 *
 * Nothing lost, nothing invented: a change is in the stream only once it has committed, and the
 * stream keeps it 24 hours until the router has handled it. The event is made from its stream
 * record alone (its id from the record, lib/domain/webhooks.ts changeEventId; its body from the
 * record's image and time), so writing it again writes the same bytes; each delivery is written
 * only if absent, so a batch handled again (a crash before the checkpoint, a Lambda retry) never
 * resets a delivery already attempted, and at most queues a delivery message twice, which the
 * delivery worker drops.
 *
 * The batch's events and deliveries are written together (store.putRouted: a transaction per 100
 * items, each delivery keeping its condition), after the endpoint Queries and before any message
 * leaves: two writes per change, one after the other, made a burst's routing the second part of
 * its webhook lag (a round trip each on a busy database).
 *
 * The first attempts are queued one message per endpoint and batch (MAX_EVENTS_PER_MESSAGE events
 * at most): a burst of one customer's posts to one endpoint is one invocation that takes the
 * endpoint's slots once and delivers at its concurrency, not hundreds racing for ten slots.
 *
 * Every event is recorded, for every customer, with or without an endpoint that takes its type
 * (beyond-v2.md "Events you can read back": GET /events reads them): a change costs its event's
 * write, and its deliveries' when endpoints take it.
 */
import { accountView } from '../../domain/views/account-view.js';
import { postView } from '../../domain/views/post-view.js';
import type { Account, MediaItem } from '../../domain/model.js';
import { mediaView } from '../../domain/views/media-view.js';
import {
  accountEvents,
  changeEventId,
  eventEnvelope,
  MAX_EVENTS_PER_MESSAGE,
  mediaEvents,
  postEvents,
  subscribes,
  type ChangeEventType,
  type PostImage,
  type WebhookEndpoint,
} from '../../domain/webhooks.js';
import type { RoutedEvent, WebhookBatchMessage, WebhookQueue, WebhookRoutingWrites, WebhookStore } from '../ports/webhooks.js';

interface ChangeBase {
  /** Which stream the change came from (its table), part of the event id. */
  source: string;
  sequenceNumber: string;
  /** When the change was written (the stream record's time). */
  at: string;
}

export type Change =
  | (ChangeBase & { kind: 'post'; previous: PostImage | null; next: PostImage | null })
  | (ChangeBase & { kind: 'account'; previous: Account | null; next: Account | null })
  | (ChangeBase & { kind: 'media'; previous: MediaItem | null; next: MediaItem | null });

export interface RouteSummary {
  changes: number;
  events: number;
  deliveries: number;
  /** Queue messages sent: one per endpoint (and MAX_EVENTS_PER_MESSAGE events). */
  messages: number;
}

export class RouteChanges {
  constructor(private readonly deps: { store: Pick<WebhookStore, 'allEndpoints'> & WebhookRoutingWrites; queue: WebhookQueue }) {}

  async execute(changes: readonly Change[]): Promise<RouteSummary> {
    // One Query per user per batch: a burst of one customer's posts reads their endpoints once.
    const endpointsOf = new Map<string, Promise<WebhookEndpoint[]>>();
    const endpoints = (userId: string): Promise<WebhookEndpoint[]> => {
      let found = endpointsOf.get(userId);
      if (!found) {
        found = this.deps.store.allEndpoints(userId);
        endpointsOf.set(userId, found);
      }
      return found;
    };
    // The changes' events and deliveries, worked out for all changes at once (the only requests are
    // the endpoint Queries, one per user), kept in stream order.
    const routed = await Promise.all(changes.map(async (change): Promise<RoutedEvent[]> => {
      const derived = derive(change);
      if (derived === null || derived.types.length === 0) return [];
      const subscribed = await endpoints(derived.userId);
      return derived.types.flatMap((type): RoutedEvent[] => {
        const targets = subscribed.filter((endpoint) => subscribes(endpoint, type));
        const id = changeEventId(change.source, change.sequenceNumber, type);
        const envelope = eventEnvelope(id, type, change.at, derived.object(type));
        const event = { id, userId: derived.userId, type, createdAt: envelope.createdAt, body: JSON.stringify(envelope) };
        return [{
          event,
          deliveries: targets.map((endpoint) => ({
            endpointId: endpoint.id,
            userId: derived.userId,
            eventId: id,
            eventType: type,
            eventCreatedAt: event.createdAt,
            status: 'pending' as const,
            attempts: 0,
            attemptLog: [],
            nextAttemptAt: event.createdAt,
            createdAt: event.createdAt,
          })),
        }];
      });
    }));
    const all = routed.flat();
    // Written together (a few transactions for the batch, not two writes per change): the events as
    // made from their records, each delivery only if absent (lib/store/dynamodb-webhook-store.ts).
    if (all.length > 0) await this.deps.store.putRouted(all);

    // Per endpoint, in stream order: its user and the events for it. Queued also when a delivery
    // existed (a replay): its first message may not have left.
    const byEndpoint = new Map<string, { userId: string; events: { eventId: string; eventCreatedAt: string }[] }>();
    let deliveries = 0;
    for (const { event, deliveries: targets } of all) {
      for (const delivery of targets) {
        const queued = byEndpoint.get(delivery.endpointId) ?? { userId: delivery.userId, events: [] };
        queued.events.push({ eventId: event.id, eventCreatedAt: event.createdAt });
        byEndpoint.set(delivery.endpointId, queued);
        deliveries += 1;
      }
    }
    const events = all.length;
    const messages: WebhookBatchMessage[] = [];
    for (const [endpointId, { userId, events: queued }] of byEndpoint) {
      for (let start = 0; start < queued.length; start += MAX_EVENTS_PER_MESSAGE) {
        messages.push({ userId, endpointId, events: queued.slice(start, start + MAX_EVENTS_PER_MESSAGE) });
      }
    }
    if (messages.length > 0) await this.deps.queue.send(messages);
    return { changes: changes.length, events, deliveries, messages: messages.length };
  }
}

function derive(change: Change): { userId: string; types: ChangeEventType[]; object: (type: ChangeEventType) => unknown } | null {
  if (change.kind === 'post') {
    const image = change.next ?? change.previous;
    if (!image) return null;
    return { userId: image.post.userId, types: postEvents(change.previous, change.next), object: () => postView(image.post) };
  }
  if (change.kind === 'media') {
    const item = change.next ?? change.previous;
    if (!item) return null;
    return { userId: item.userId, types: mediaEvents(change.previous, change.next), object: () => mediaView(item) };
  }
  const account = change.next ?? change.previous;
  if (!account) return null;
  return {
    userId: account.userId,
    types: accountEvents(change.previous, change.next),
    // A disconnected account is shown as it was last.
    object: () => accountView(account),
  };
}
