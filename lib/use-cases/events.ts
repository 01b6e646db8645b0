/**
 * Events you can read back (beyond-v2.md "Events you can read back"): GET /events and
 * GET /events/{id}. Every committed change the webhook router turns into an event is recorded for
 * every customer, with or without an endpoint (route-changes.ts), so a receiver that was down
 * longer than the retries catches up here: the same envelope and the same id as the webhook's
 * `webhook-id`. Tenancy: the list is keyed by the caller's user id; another customer's event is
 * not found, exactly like a missing one.
 */
import type { Caller } from '../domain/caller.js';
import { decodeCursor, encodeCursor, refusedPageKey, type CursorScope } from '../domain/cursor.js';
import { ApiError } from '../domain/errors.js';
import {
  DEFAULT_EVENT_PAGE_SIZE,
  EVENT_RETENTION_MS,
  eventsSince,
  isEventId,
  MAX_EVENT_PAGE_SIZE,
  parseEventTypeFilter,
  type EventTypeFilter,
} from '../domain/events.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import type { WebhookEventEnvelope } from '../domain/webhooks.js';
import type { Clock } from './ports/clock.js';
import type { EventStore } from './ports/events.js';
import type { WebhookEventRecord } from './ports/webhooks.js';

export interface EventList {
  object: 'list';
  events: WebhookEventEnvelope[];
  nextCursor: string | null;
}

export interface ListEventsQuery {
  limit: number;
  cursor: string | null;
  type: EventTypeFilter | null;
  /** The filter as asked (`post.*`): a cursor is signed for it. */
  typeParameter: string | null;
}

export function parseListEventsQuery(query: Record<string, string>): ListEventsQuery {
  checkQueryParameters(query, ['limit', 'cursor', 'type'], 'GET /events accepts limit, cursor and type.');
  let limit = DEFAULT_EVENT_PAGE_SIZE;
  if (query.limit !== undefined) {
    limit = /^[0-9]{1,3}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_EVENT_PAGE_SIZE)) {
      throw new ApiError('invalid_limit', `limit must be a whole number from 1 to ${MAX_EVENT_PAGE_SIZE}.`, { param: 'limit' });
    }
  }
  return { limit, cursor: query.cursor ?? null, type: parseEventTypeFilter(query.type), typeParameter: query.type ?? null };
}

/** The event as sent to webhooks: its stored body, byte for byte the envelope every delivery signed. */
function envelopeOf(event: WebhookEventRecord): WebhookEventEnvelope {
  return JSON.parse(event.body) as WebhookEventEnvelope;
}

function notFound(): ApiError {
  return new ApiError('event_not_found', `No event with this id (events are kept ${EVENT_RETENTION_MS / 86_400_000} days).`, { param: 'id' });
}

export class Events {
  constructor(private readonly deps: { events: EventStore; clock: Clock; cursorSigningKey: () => Promise<string> }) {}

  async list(caller: Caller, query: ListEventsQuery): Promise<EventList> {
    // Signed for the filter too: a cursor of `post.*` does not continue an unfiltered list.
    const scope: CursorScope = { userId: caller.userId, status: `events:${query.typeParameter ?? '*'}` };
    const signingKey = await this.deps.cursorSigningKey();
    const startKey = query.cursor === null ? null : decodeCursor(query.cursor, scope, signingKey);
    try {
      const page = await this.deps.events.listEvents(caller.userId, {
        limit: query.limit,
        startKey,
        since: eventsSince(this.deps.clock.now()),
        type: query.type,
      });
      return {
        object: 'list',
        events: page.events.filter((event) => event.userId === caller.userId).map(envelopeOf),
        nextCursor: page.nextKey === null ? null : encodeCursor(scope, page.nextKey, signingKey),
      };
    } catch (error) {
      throw refusedPageKey(error) ?? error;
    }
  }

  /** The newest events (the settings Webhooks page): one page, no cursor to sign. */
  async recent(caller: Caller, limit: number): Promise<WebhookEventEnvelope[]> {
    const page = await this.deps.events.listEvents(caller.userId, { limit, startKey: null, since: eventsSince(this.deps.clock.now()), type: null });
    return page.events.filter((event) => event.userId === caller.userId).map(envelopeOf);
  }

  async get(caller: Caller, eventId: string): Promise<WebhookEventEnvelope> {
    if (!isEventId(eventId)) throw notFound();
    const event = await this.deps.events.getEvent(eventId);
    if (!event || event.userId !== caller.userId || event.createdAt <= eventsSince(this.deps.clock.now())) throw notFound();
    return envelopeOf(event);
  }
}
