/**
 * Webhook endpoints (beyond-v1.md "Webhook endpoints"): the operations behind
 * /api/v1/webhook_endpoints, shaped so a settings page can use them as they are: create (the
 * secret shown once), list, get, update, enable/disable, delete, rotate the secret, send a test
 * event, the recent deliveries of an endpoint, resend one delivery.
 *
 * Tenancy: every read and write is keyed by the caller's user id, so another customer's endpoint
 * is not found (404 webhook_endpoint_not_found), exactly like a missing one.
 *
 * The three POSTs take an Idempotency-Key as every POST of the API does (beyond-v1.md), kept as a
 * post change keeps it (idempotent-request.ts): its record completed in the write's own
 * transaction, so a create retried after a lost answer gets that answer, not a second endpoint; a
 * rotation retried does not rotate twice (dropping the secret receivers were given); a test is
 * not sent twice. A replayed create or rotation shows its secret again, to the caller who made it
 * with that key, within the key's 24 hours: the answer it lost is what the key is for. The record
 * keeps that secret encrypted as the endpoint does (same key and context), never in plain text.
 */
import type { Caller } from '../../domain/caller.js';
import type { IdempotencyCompletion, IdempotencyLock } from '../../domain/idempotency-record.js';
import { decodeCursor, encodeCursor, refusedPageKey, type CursorScope } from '../../domain/cursor.js';
import { ApiError } from '../../domain/errors.js';
import { checkQueryParameters } from '../../domain/query-parameters.js';
import {
  checkDescription,
  checkEnabledEvents,
  checkWebhookUrl,
  eventEnvelope,
  newEndpointId,
  newSigningSecret,
  newTestEventId,
  rotatedSecrets,
  unreachableUrl,
  webhookEndpointView,
  type UrlRules,
  type WebhookEndpoint,
  type WebhookEndpointView,
  type WebhookEventType,
  secretContext,
} from '../../domain/webhooks.js';
import { idempotentRequest, type IdempotentOutcome } from '../idempotent-request.js';
import type { Clock } from '../ports/clock.js';
import type { IdempotencyStore } from '../ports/idempotency-store.js';
import type { TokenCipher } from '../ports/token-cipher.js';
import type { DeliveryRecord, EndpointChanges, WebhookQueue, WebhookStore, WebhookUrlResolver } from '../ports/webhooks.js';

export const DEFAULT_ENDPOINT_PAGE_SIZE = 10;
export const MAX_ENDPOINT_PAGE_SIZE = 100;
/** The scope a list cursor is signed for: never valid for a posts list, nor for another user. */
const CURSOR_LIST = 'webhook_endpoints';

export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  /** Shown only in the answer that made it (create, rotate_secret, and that answer replayed). */
  secret: string;
}

/** How an idempotency record keeps an answer with a secret: the secret as the endpoint stores it. */
interface RememberedWithSecret extends WebhookEndpointView {
  encryptedSecret: string;
}

/** A change of the endpoints under a request's Idempotency-Key (the API's, or the settings add form's submission key; absent: none). */
export interface EndpointRequest {
  idempotencyKey?: string | undefined;
}

export interface WebhookEndpointList {
  object: 'list';
  webhookEndpoints: WebhookEndpointView[];
  nextCursor: string | null;
}

export interface WebhookEndpointDeleted {
  object: 'webhook_endpoint_deleted';
  id: string;
  deleted: true;
}

/** One delivery as the settings page lists it. */
export interface DeliveryView {
  eventId: string;
  eventType: WebhookEventType;
  eventCreatedAt: string;
  status: DeliveryRecord['status'];
  attempts: number;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** When the last attempt was made (null before the first). */
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

export function deliveryView(delivery: DeliveryRecord): DeliveryView {
  const last = delivery.attemptLog[delivery.attemptLog.length - 1];
  return {
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    eventCreatedAt: delivery.eventCreatedAt,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: last?.statusCode ?? null,
    lastLatencyMs: last?.latencyMs ?? null,
    lastError: last?.error ?? null,
    lastAttemptAt: last?.at ?? null,
    nextAttemptAt: delivery.nextAttemptAt,
  };
}

function notFound(): ApiError {
  return new ApiError('webhook_endpoint_not_found', 'No webhook endpoint with this id.', { param: 'id' });
}

/** The JSON object body (the pipeline's jsonBody step has already refused anything else). */
function checkFields(raw: unknown, allowed: readonly string[], what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ApiError('invalid_body', 'The body must be a JSON object.');
  const body = raw as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw new ApiError('invalid_body', `${what} accepts ${allowed.join(', ')}; "${key.slice(0, 60)}" is not one of them.`, { param: key.slice(0, 60) });
  }
  return body;
}

export interface ListEndpointsQuery {
  limit: number;
  cursor: string | null;
}

export function parseListEndpointsQuery(query: Record<string, string>): ListEndpointsQuery {
  checkQueryParameters(query, ['limit', 'cursor'], 'GET /webhook_endpoints accepts limit and cursor.');
  let limit = DEFAULT_ENDPOINT_PAGE_SIZE;
  if (query.limit !== undefined) {
    limit = /^[0-9]{1,3}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_ENDPOINT_PAGE_SIZE)) {
      throw new ApiError('invalid_limit', `limit must be a whole number from 1 to ${MAX_ENDPOINT_PAGE_SIZE}.`, { param: 'limit' });
    }
  }
  return { limit, cursor: query.cursor ?? null };
}

/** A rotation that lost a race is read and made again; only a concurrent change of the same endpoint can cause one. */
const MAX_ROTATE_ATTEMPTS = 4;
/** A resend that lost a race with a worker's record is read and made again. */
const MAX_RESEND_ATTEMPTS = 4;

export interface WebhookEndpointsDeps {
  store: WebhookStore;
  /** The Idempotency-Key records of the three POSTs (lib/use-cases/idempotent-request.ts). */
  idempotency: IdempotencyStore;
  cipher: TokenCipher;
  queue: WebhookQueue;
  resolver: WebhookUrlResolver;
  clock: Clock;
  urlRules: UrlRules;
  cursorSigningKey: () => Promise<string>;
}

export class WebhookEndpoints {
  constructor(private readonly deps: WebhookEndpointsDeps) {}

  private async checkUrl(value: unknown): Promise<string> {
    const { url, loopback } = checkWebhookUrl(value, this.deps.urlRules);
    if (!loopback) {
      const verdict = await this.deps.resolver.check(url.hostname);
      if (verdict !== 'public') throw unreachableUrl(url.hostname, verdict);
    }
    return url.toString();
  }

  private async owned(caller: Caller, endpointId: string): Promise<WebhookEndpoint> {
    // Ids are ours (we_ + 20 base62): anything else is simply not found, without a read.
    if (!/^we_[0-9A-Za-z]{20}$/.test(endpointId)) throw notFound();
    const endpoint = await this.deps.store.getEndpoint(caller.userId, endpointId);
    if (!endpoint || endpoint.userId !== caller.userId) throw notFound();
    return endpoint;
  }

  /**
   * The answer with its secret as shown, and what the key's record keeps of it (when the request
   * holds a key): the secret encrypted as the endpoint stores it (see the file's comment).
   */
  private static secretAnswer(
    lock: IdempotencyLock | null,
    view: WebhookEndpointView,
    secret: { plain: string; encrypted: string },
    status: number,
  ): { answer: IdempotentOutcome<WebhookEndpointWithSecret>; remember: IdempotencyCompletion | null } {
    const remembered: RememberedWithSecret = { ...view, encryptedSecret: secret.encrypted };
    return { answer: { status, body: { ...view, secret: secret.plain } }, remember: lock ? { lock, response: { status, body: remembered } } : null };
  }

  /** A remembered answer with a secret, shown again as it was first shown. */
  private async revealed(remembered: unknown): Promise<WebhookEndpointWithSecret> {
    const { encryptedSecret, ...view } = remembered as RememberedWithSecret;
    return { ...view, secret: await this.deps.cipher.decrypt(encryptedSecret, secretContext(view.id)) };
  }

  async create(caller: Caller, raw: unknown, request: EndpointRequest = {}): Promise<IdempotentOutcome<WebhookEndpointWithSecret>> {
    const now = this.deps.clock.now();
    const keyed = { method: 'POST', path: '/webhook_endpoints', body: raw, idempotencyKey: request.idempotencyKey, now };
    return idempotentRequest(
      this.deps.idempotency,
      caller,
      keyed,
      async (lock, progress) => {
        const body = checkFields(raw, ['url', 'enabledEvents', 'description'], 'POST /webhook_endpoints');
        const enabledEvents = checkEnabledEvents(body.enabledEvents);
        const description = checkDescription(body.description);
        const url = await this.checkUrl(body.url);
        const at = this.deps.clock.now().toISOString();
        const id = newEndpointId();
        const secret = newSigningSecret();
        const encrypted = await this.deps.cipher.encrypt(secret, secretContext(id));
        const endpoint: WebhookEndpoint = {
          id,
          userId: caller.userId,
          url,
          enabledEvents,
          description,
          status: 'enabled',
          disabledReason: null,
          createdAt: at,
          updatedAt: at,
          secrets: [{ encrypted, createdAt: at, expiresAt: null }],
          failingSince: null,
        };
        const { answer, remember } = WebhookEndpoints.secretAnswer(lock, webhookEndpointView(endpoint), { plain: secret, encrypted }, 201);
        if ((await this.deps.store.createEndpoint(endpoint, remember)) === 'limit_reached') {
          throw new ApiError('too_many_webhook_endpoints', 'An account has at most 16 webhook endpoints; delete one to add another.');
        }
        progress.remembered = lock !== null;
        return answer;
      },
      (remembered) => this.revealed(remembered),
    );
  }

  async list(caller: Caller, query: ListEndpointsQuery): Promise<WebhookEndpointList> {
    const scope: CursorScope = { userId: caller.userId, status: CURSOR_LIST };
    const signingKey = await this.deps.cursorSigningKey();
    const startKey = query.cursor === null ? null : decodeCursor(query.cursor, scope, signingKey);
    try {
      const page = await this.deps.store.listEndpoints(caller.userId, { limit: query.limit, startKey });
      return {
        object: 'list',
        webhookEndpoints: page.endpoints.filter((endpoint) => endpoint.userId === caller.userId).map(webhookEndpointView),
        nextCursor: page.nextKey === null ? null : encodeCursor(scope, page.nextKey, signingKey),
      };
    } catch (error) {
      throw refusedPageKey(error) ?? error;
    }
  }

  /**
   * Every endpoint of the caller, oldest first (the settings page): at most MAX_WEBHOOK_ENDPOINTS,
   * so one Query and no cursor to sign.
   */
  async all(caller: Caller): Promise<WebhookEndpointView[]> {
    const endpoints = await this.deps.store.allEndpoints(caller.userId);
    return endpoints.filter((endpoint) => endpoint.userId === caller.userId).map(webhookEndpointView);
  }

  async get(caller: Caller, endpointId: string): Promise<WebhookEndpointView> {
    return webhookEndpointView(await this.owned(caller, endpointId));
  }

  async update(caller: Caller, endpointId: string, raw: unknown): Promise<WebhookEndpointView> {
    const body = checkFields(raw, ['url', 'enabledEvents', 'description', 'status'], 'PATCH /webhook_endpoints/{id}');
    const changes: EndpointChanges = {};
    if (body.enabledEvents !== undefined) changes.enabledEvents = checkEnabledEvents(body.enabledEvents);
    if (body.description !== undefined) changes.description = checkDescription(body.description);
    if (body.status !== undefined) {
      if (body.status !== 'enabled' && body.status !== 'disabled') {
        throw new ApiError('invalid_body', 'status must be "enabled" or "disabled".', { param: 'status' });
      }
      changes.status = body.status;
      // Enabling again starts afresh: no reason shown, no run of failures carried over.
      changes.disabledReason = null;
      if (body.status === 'enabled') changes.failingSince = null;
    }
    await this.owned(caller, endpointId);
    if (body.url !== undefined) changes.url = await this.checkUrl(body.url);
    const updated = await this.deps.store.updateEndpoint(caller.userId, endpointId, changes, this.deps.clock.now());
    if (!updated) throw notFound();
    return webhookEndpointView(updated);
  }

  async remove(caller: Caller, endpointId: string): Promise<WebhookEndpointDeleted> {
    await this.owned(caller, endpointId);
    if (!(await this.deps.store.deleteEndpoint(caller.userId, endpointId))) throw notFound();
    return { object: 'webhook_endpoint_deleted', id: endpointId, deleted: true };
  }

  /**
   * A new secret; the ones still signing keep doing so (the newest until its 24 hours are up:
   * rotatedSecrets). Written only over the endpoint as read, so two rotations at once each answer
   * a secret that signs: the later one is made over the earlier.
   */
  async rotateSecret(caller: Caller, endpointId: string, request: EndpointRequest = {}): Promise<IdempotentOutcome<WebhookEndpointWithSecret>> {
    const now = this.deps.clock.now();
    const keyed = { method: 'POST', path: `/webhook_endpoints/${endpointId}/rotate_secret`, body: null, idempotencyKey: request.idempotencyKey, now };
    return idempotentRequest(
      this.deps.idempotency,
      caller,
      keyed,
      async (lock, progress) => {
        let endpoint = await this.owned(caller, endpointId);
        // One new secret, encrypted once: a rotation that lost a race writes it over the endpoint read again.
        const secret = newSigningSecret();
        const encrypted = await this.deps.cipher.encrypt(secret, secretContext(endpointId));
        for (let attempt = 1; ; attempt++) {
          const at = this.deps.clock.now();
          const after: WebhookEndpoint = {
            ...endpoint,
            secrets: rotatedSecrets(endpoint.secrets, { encrypted, createdAt: at.toISOString(), expiresAt: null }, at),
            updatedAt: at.toISOString(),
          };
          const { answer, remember } = WebhookEndpoints.secretAnswer(lock, webhookEndpointView(after), { plain: secret, encrypted }, 200);
          if ((await this.deps.store.replaceSecrets(after, endpoint.updatedAt, remember)) === 'applied') {
            progress.remembered = lock !== null;
            return answer;
          }
          if (attempt >= MAX_ROTATE_ATTEMPTS) throw new Error(`Endpoint ${endpointId} kept changing during ${MAX_ROTATE_ATTEMPTS} rotations`);
          endpoint = await this.owned(caller, endpointId);
        }
      },
      (remembered) => this.revealed(remembered),
    );
  }

  /** Sends a `webhook.test` event to this endpoint now (queued like any delivery); 409 when it is disabled. */
  async sendTest(caller: Caller, endpointId: string, request: EndpointRequest = {}): Promise<IdempotentOutcome<ReturnType<typeof eventEnvelope>>> {
    const now = this.deps.clock.now();
    const keyed = { method: 'POST', path: `/webhook_endpoints/${endpointId}/test`, body: null, idempotencyKey: request.idempotencyKey, now };
    return idempotentRequest(this.deps.idempotency, caller, keyed, async (lock, progress) => {
      const endpoint = await this.owned(caller, endpointId);
      if (endpoint.status !== 'enabled') {
        throw new ApiError('webhook_endpoint_disabled', 'This endpoint is disabled and receives nothing; enable it first (PATCH status "enabled").');
      }
      const at = this.deps.clock.now().toISOString();
      const envelope = eventEnvelope(newTestEventId(), 'webhook.test', at, {});
      const answer = { status: 202, body: envelope };
      await this.deps.store.putEvent({ id: envelope.id, userId: caller.userId, type: 'webhook.test', createdAt: at, body: JSON.stringify(envelope) });
      // The delivery is the outbox entry: once it is written (with the key's answer), the sweeper
      // sends it even if the message below is lost.
      const delivery: DeliveryRecord = {
        endpointId,
        userId: caller.userId,
        eventId: envelope.id,
        eventType: 'webhook.test',
        eventCreatedAt: at,
        status: 'pending',
        attempts: 0,
        attemptLog: [],
        nextAttemptAt: at,
        createdAt: at,
      };
      await this.deps.store.putDelivery(delivery, lock ? { lock, response: answer } : null);
      progress.remembered = lock !== null;
      await this.deps.queue.send([{ userId: caller.userId, endpointId, eventId: envelope.id, eventCreatedAt: at, attempt: 1, notBefore: null }]);
      return answer;
    });
  }

  /** The endpoint's most recent deliveries, newest first (the settings page). */
  async recentDeliveries(caller: Caller, endpointId: string, limit = 25): Promise<DeliveryView[]> {
    await this.owned(caller, endpointId);
    const deliveries = await this.deps.store.listDeliveries(endpointId, Math.min(Math.max(limit, 1), 100));
    return deliveries.filter((delivery) => delivery.userId === caller.userId).map(deliveryView);
  }

  /** Sends one delivery again now, once (its retries, if any were left, are not restarted). */
  async resend(caller: Caller, endpointId: string, eventId: string): Promise<DeliveryView> {
    const endpoint = await this.owned(caller, endpointId);
    if (endpoint.status !== 'enabled') {
      throw new ApiError('webhook_endpoint_disabled', 'This endpoint is disabled and receives nothing; enable it first.');
    }
    const event = /^evt_[0-9A-Za-z]{1,40}$/.test(eventId) ? await this.deps.store.getEvent(eventId) : null;
    const read = () => (event && event.userId === caller.userId ? this.deps.store.getDelivery(endpointId, event.createdAt, eventId) : Promise.resolve(null));
    const now = this.deps.clock.now().toISOString();
    // Pending again over the delivery as read: an attempt recorded meanwhile (a worker's) is read
    // again, so the resend names the delivery's next attempt.
    let delivery = await read();
    for (let tries = 1; delivery && !(await this.deps.store.setDeliveryStatus(delivery, 'pending', now)); tries += 1) {
      if (tries === MAX_RESEND_ATTEMPTS) throw new Error(`Delivery of ${eventId} to ${endpointId} kept changing while resent`);
      delivery = await read();
    }
    if (!event || !delivery) throw new ApiError('webhook_endpoint_not_found', 'No delivery of this event to this endpoint.', { param: 'eventId' });
    await this.deps.queue.send([
      { userId: caller.userId, endpointId, eventId, eventCreatedAt: event.createdAt, attempt: delivery.attempts + 1, notBefore: null, manual: true },
    ]);
    return deliveryView({ ...delivery, status: 'pending', nextAttemptAt: now });
  }
}
