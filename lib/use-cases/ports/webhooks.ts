/**
 * Webhooks (lib/use-cases/webhooks/): the endpoints, events and deliveries of the webhooks table,
 * the queue deliveries wait in, the address check of a URL at registration and the outbound
 * request. Adapters: lib/store/dynamodb-webhook-store.ts, lib/dispatch/webhook-queue.ts,
 * lib/egress/webhook-sender.ts.
 */
import type { PageKey } from '../../domain/cursor.js';
import type { IdempotencyCompletion } from '../../domain/idempotency-record.js';
import type { WebhookEndpoint, WebhookEventType } from '../../domain/webhooks.js';

export interface WebhookEventRecord {
  id: string;
  userId: string;
  type: WebhookEventType;
  createdAt: string;
  /** The envelope exactly as sent: every attempt of every delivery signs these bytes. */
  body: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface DeliveryAttempt {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliveryRecord {
  endpointId: string;
  userId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** The event's time: with its id, the delivery's key (newest first on the settings page). */
  eventCreatedAt: string;
  status: DeliveryStatus;
  /** Attempts made so far (the attempt log keeps the last few). */
  attempts: number;
  attemptLog: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

/** One event of the router's batch and its deliveries, one per endpoint that takes it. */
export interface RoutedEvent {
  event: WebhookEventRecord;
  deliveries: readonly DeliveryRecord[];
}

export type EndpointChanges = Partial<
  Pick<WebhookEndpoint, 'url' | 'enabledEvents' | 'description' | 'status' | 'disabledReason' | 'secrets' | 'failingSince'>
>;

/** A user's webhook endpoints (lib/store/dynamodb-webhook-endpoints.ts). */
export interface WebhookEndpointStore {
  /**
   * Writes the endpoint unless the user already has MAX_WEBHOOK_ENDPOINTS (one conditional
   * transaction, which also completes the request's idempotency record when it holds one).
   */
  createEndpoint(endpoint: WebhookEndpoint, remember?: IdempotencyCompletion | null): Promise<'created' | 'limit_reached'>;
  getEndpoint(userId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  /** One page of the user's endpoints, oldest first. */
  listEndpoints(userId: string, page: { limit: number; startKey: PageKey | null }): Promise<{ endpoints: WebhookEndpoint[]; nextKey: PageKey | null }>;
  /** All of the user's endpoints (at most MAX_WEBHOOK_ENDPOINTS: one Query). */
  allEndpoints(userId: string): Promise<WebhookEndpoint[]>;
  /** Applies the changes to an existing endpoint; null when it does not exist. */
  updateEndpoint(userId: string, endpointId: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpoint | null>;
  /**
   * Writes `after`'s secrets and updatedAt only while the endpoint is as read (its updatedAt is
   * `readUpdatedAt`), with the request's idempotency record completed in the same transaction:
   * two rotations at once cannot both keep their new secret, and the answer is exactly `after`.
   * `changed`: it changed or is gone since the read; nothing written.
   */
  replaceSecrets(after: WebhookEndpoint, readUpdatedAt: string, remember: IdempotencyCompletion | null): Promise<'applied' | 'changed'>;
  /** Disables an endpoint still enabled (false: already disabled or gone). */
  disableEndpoint(userId: string, endpointId: string, reason: string, now: Date): Promise<boolean>;
  /** The first failure of a run: sets failingSince unless set; returns the value it holds now. */
  markFailing(userId: string, endpointId: string, now: Date): Promise<string | null>;
  clearFailing(userId: string, endpointId: string): Promise<void>;
  deleteEndpoint(userId: string, endpointId: string): Promise<boolean>;
}

/** The events the webhooks send (lib/store/dynamodb-event-store.ts). */
export interface WebhookEventStore {
  /** Writes the event unless an event with its id exists; returns the one stored (the first write wins). */
  putEvent(event: WebhookEventRecord): Promise<WebhookEventRecord>;
  getEvent(eventId: string): Promise<WebhookEventRecord | null>;
}

/** The deliveries of events to endpoints, with their attempts (lib/store/dynamodb-webhook-deliveries.ts). */
export interface WebhookDeliveryStore {
  /** Writes the delivery unless it exists (with the request's idempotency record completed, when it holds one); true when written. */
  putDelivery(delivery: DeliveryRecord, remember?: IdempotencyCompletion | null): Promise<boolean>;

  getDelivery(endpointId: string, eventCreatedAt: string, eventId: string): Promise<DeliveryRecord | null>;
  /**
   * Records attempt `attempt` over a delivery that has made `attempt - 1`, by the holder of its
   * claim (`claimToken`, claimAttempt); false when another worker made it or took the claim over.
   * Given the delivery's attempt log as read before the attempt, it is not read again.
   */
  recordAttempt(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'> & { attemptLog?: readonly DeliveryAttempt[] },
    attempt: number,
    claimToken: string,
    result: { entry: DeliveryAttempt; status: DeliveryStatus; nextAttemptAt: string | null },
  ): Promise<boolean>;
  /**
   * Sets the delivery's status (cancelled, or pending again for a resend) without an attempt, while
   * it is as read (its status and attempts); false when it changed since.
   */
  setDeliveryStatus(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId' | 'status' | 'attempts'>,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
  ): Promise<boolean>;
  /**
   * Claims attempt `attempt` of a pending delivery that has made `attempt - 1` until `until` (a
   * lease: a worker that died holding it is replaced once it runs out); false when another worker
   * holds it or the attempt was made. Two messages for the same attempt send it once.
   */
  claimAttempt(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>,
    attempt: number,
    claim: { token: string; now: Date; until: Date },
  ): Promise<boolean>;
  /** Gives a claim back unused (the endpoint was busy and the delivery goes back on the queue). */
  releaseAttempt(delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>, token: string): Promise<void>;
  /** The endpoint's deliveries, newest first. */
  listDeliveries(endpointId: string, limit: number): Promise<DeliveryRecord[]>;
}

/** An endpoint's in-flight slots (lib/store/dynamodb-webhook-slots.ts). */
export interface WebhookSlotStore {
  /**
   * Takes up to `wanted` of the endpoint's in-flight slots until `until`, each free or its lease
   * over (one conditional write per slot tried, at most ENDPOINT_IN_FLIGHT_LIMIT); the numbers taken,
   * none when all are held.
   */
  acquireSlots(endpointId: string, token: string, wanted: number, now: Date, until: Date): Promise<number[]>;
  releaseSlot(endpointId: string, slot: number, token: string): Promise<void>;
}

/** Every webhook record kind together, as the webhook use cases take them (lib/store/dynamodb-webhook-store.ts). */
export type WebhookStore = WebhookEndpointStore & WebhookEventStore & WebhookDeliveryStore & WebhookSlotStore;

/** The webhook router's writes beyond the store's. */
export interface WebhookRoutingWrites {
  /**
   * The router's writes of a batch: each event (as given: it is made from its stream record alone,
   * so a replay writes the same bytes) with its deliveries (each written only if absent, so a
   * replay never resets one already attempted), together in a few requests, an event never in a
   * later request than its deliveries. Resolves once all are written or found present.
   */
  putRouted(routed: readonly RoutedEvent[]): Promise<void>;
}

/** The delivery worker's one read beyond the store's. */
export interface WebhookDeliveryReads {
  /**
   * What a message needs read: the endpoint (null when deleted), and the deliveries of these events
   * to it with the events, by event id (each null when absent), read together (BatchGetItem,
   * consistent: the endpoint in the same request as the first deliveries).
   */
  readForDelivery(
    userId: string,
    endpointId: string,
    wanted: readonly { eventId: string; eventCreatedAt: string }[],
  ): Promise<{ endpoint: WebhookEndpoint | null; records: Map<string, { delivery: DeliveryRecord | null; event: WebhookEventRecord | null }> }>;
}

/** A pending delivery's entry in the outbox (the byPending index of lib/store/tables.ts). */
export interface PendingDeliveryEntry {
  endpointId: string;
  eventCreatedAt: string;
  eventId: string;
  /** The entry's place as listed: the stamp holds only over it, so two sweepers send once. */
  pendingSk: string;
}

/** The outbox of pending deliveries, for the sweeper (lib/use-cases/webhooks/sweep-deliveries.ts). */
export interface PendingDeliveries {
  /** The shard's entries whose time is at or before `to`, oldest first, at most `limit`. */
  listPending(shard: number, options: { to: Date; limit: number }): Promise<PendingDeliveryEntry[]>;
  /**
   * Moves the entry to `resendAt` if it is still where it was listed, the delivery still pending and
   * no worker holds its attempt (one conditional write); the delivery as it is then, or null when not.
   */
  stampPending(entry: PendingDeliveryEntry, stamp: { now: Date; resendAt: Date }): Promise<DeliveryRecord | null>;
}

/** A delivery waiting in the webhook queue. */
export interface WebhookDeliveryMessage {
  userId: string;
  endpointId: string;
  eventId: string;
  eventCreatedAt: string;
  /** The attempt this message is for (1 for the first). */
  attempt: number;
  /** Not to be tried before this time (a retry longer than the queue's longest delay is re-sent until then). */
  notBefore: string | null;
  /** A resend from settings: one attempt, no retries after it. */
  manual?: boolean;
}

/**
 * The first attempts of several events to one endpoint: the router's, one per endpoint and stream
 * batch (at most MAX_EVENTS_PER_MESSAGE), so one invocation takes the endpoint's slots once and
 * delivers them all at the endpoint's concurrency instead of each event racing for a slot.
 */
export interface WebhookBatchMessage {
  userId: string;
  endpointId: string;
  events: readonly { eventId: string; eventCreatedAt: string }[];
}

export type WebhookQueueMessage = WebhookDeliveryMessage | WebhookBatchMessage;

export function isBatchMessage(message: WebhookQueueMessage): message is WebhookBatchMessage {
  return 'events' in message;
}

export interface WebhookQueue {
  send(messages: readonly WebhookQueueMessage[], delaySeconds?: number): Promise<void>;
}

export interface WebhookUrlResolver {
  /** Whether every address the host resolves to is public. */
  check(hostname: string): Promise<'public' | 'not_public' | 'unresolved'>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookAnswer {
  /** null when no answer came (timeout, refused connection, refused address). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookAnswer>;
}
