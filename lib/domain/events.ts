/**
 * Events you can read back (beyond-v2.md): the rules of GET /events, pure. An event is the
 * webhooks' envelope (lib/domain/webhooks.ts eventEnvelope), with the same id as its deliveries'
 * `webhook-id`, kept for EVENT_RETENTION_DAYS.
 */
import { ApiError } from './errors.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_RECORD_TTL_SECONDS } from './webhooks.js';

/** How far back the list reaches: the events' own expiry (their TTL deletes them later, within days). */
export const EVENT_RETENTION_MS = WEBHOOK_RECORD_TTL_SECONDS * 1000;
export const DEFAULT_EVENT_PAGE_SIZE = 25;
export const MAX_EVENT_PAGE_SIZE = 100;

/** Every type an event may have: each one the router emits, and the test action's. */
const EVENT_TYPES: readonly string[] = [...WEBHOOK_EVENT_TYPES, 'webhook.test'];

/** A `type` filter: one type, or every type of a group (`post.*`: types starting with `post.`). */
export type EventTypeFilter = { exact: string } | { prefix: string };

export function parseEventTypeFilter(value: string | undefined): EventTypeFilter | null {
  if (value === undefined) return null;
  if (EVENT_TYPES.includes(value)) return { exact: value };
  const group = /^([a-z_]+)\.\*$/.exec(value)?.[1];
  if (group !== undefined && EVENT_TYPES.some((type) => type.startsWith(`${group}.`))) return { prefix: `${group}.` };
  const groups = [...new Set(EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`))];
  throw new ApiError('invalid_event_type', `type must be an event type (${EVENT_TYPES.join(', ')}) or a group (${groups.join(', ')}); got "${value.slice(0, 60)}".`, {
    param: 'type',
  });
}

/** The earliest createdAt the list shows at `now`. */
export function eventsSince(now: Date): string {
  return new Date(now.getTime() - EVENT_RETENTION_MS).toISOString();
}

/** `evt_` and the id's own characters (changeEventId, newTestEventId): anything else is not found without a read. */
export function isEventId(value: string): boolean {
  return /^evt_[0-9A-Za-z_]{1,80}$/.test(value);
}
