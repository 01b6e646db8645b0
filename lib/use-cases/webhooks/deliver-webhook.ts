/**
 * The delivery worker's use case: one attempt of one delivery (beyond-v1.md "Delivery").
 *
 * - Signed by Standard Webhooks with every active secret (the current one, and a rotated one
 *   within its 24 h overlap); `webhook-id` is the event id, the same on every attempt.
 * - Any 2xx succeeds; 410 disables the endpoint at once; anything else (other statuses, a timeout,
 *   a refused address or connection) is tried again on the schedule of lib/domain/webhooks.ts, and
 *   an endpoint whose deliveries have all failed for 3 days is disabled with a reason.
 * - Bounded per endpoint: an attempt first takes one of its endpoint's 10 in-flight slots (a
 *   leased item), waiting up to a second for one. When they stay held (the endpoint is slow or dead
 *   and already occupies its share of workers), the delivery is put back on the queue for a few
 *   seconds, costing no attempt, and the worker is free for other customers' deliveries.
 * - SQS delays a message by 15 minutes at most, so a later retry is sent with the longest delay
 *   and `notBefore`; a message received before its time is sent again (chained), costing no attempt.
 * - A deleted or disabled endpoint receives nothing more.
 * - The delivery item, not the message, says which attempt is next (its attempts + 1): a message is
 *   taken when it names that attempt, or when the delivery is pending and due (a message re-sent
 *   by the sweeper, or an older one redelivered after the worker that made its attempt died
 *   before sending the next one). Otherwise (settled, or a duplicate before the next attempt's
 *   time) it is dropped. The attempt is claimed with a conditional write (a lease) before it is
 *   sent, so two messages racing for it send it once.
 */
import { randomUUID } from 'node:crypto';
import {
  activeSecrets,
  classifyAnswer,
  DELIVERY_TIMEOUT_MS,
  ENDPOINT_SLOT_LEASE_MARGIN_MS,
  SLOT_RETRY_MS,
  SLOT_WAIT_MS,
  retryDelayMs,
  shouldDisableForFailures,
  signedHeaders,
} from '../../domain/webhooks.js';
import type { Clock } from '../ports/clock.js';
import type { TokenCipher } from '../ports/token-cipher.js';
import type { DeliveryAttempt, WebhookDeliveryMessage, WebhookQueue, WebhookSender, WebhookStore } from '../ports/webhooks.js';
import { secretContext } from './endpoints.js';

/**
 * Decrypted signing secrets kept in the worker's memory for a few minutes, keyed by their
 * endpoint and ciphertext (a rotation makes a new one): KMS charges per Decrypt, and without this every delivery
 * would pay one (about $3 per million deliveries, more than all the rest of a delivery). Bounded.
 */
const SECRET_CACHE_MS = 5 * 60_000;
const SECRET_CACHE_ENTRIES = 1_000;

/** SQS DelaySeconds at most. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/** How long a delivery goes back on the queue for when its endpoint's slots stayed held. */
const BUSY_ENDPOINT_WAIT_SECONDS = 2;

export type DeliveryResult =
  | { outcome: 'succeeded' | 'gone' | 'failed' | 'retrying'; statusCode: number | null }
  | { outcome: 'waiting'; reason: 'not_before' | 'endpoint_busy' }
  | { outcome: 'dropped'; reason: string };

export interface DeliverWebhookDeps {
  store: WebhookStore;
  cipher: TokenCipher;
  sender: WebhookSender;
  queue: WebhookQueue;
  clock: Clock;
  /** How long an attempt may take (the sender's timeout): an endpoint's slot is leased a little longer. */
  attemptTimeoutMs?: number;
  random?: () => number;
  /** Waits between tries for a slot (tests pass their own). */
  pause?: (ms: number) => Promise<void>;
}

export class DeliverWebhook {
  private readonly random: () => number;
  private readonly pause: (ms: number) => Promise<void>;
  private readonly secrets = new Map<string, { plain: Promise<string>; until: number }>();

  constructor(private readonly deps: DeliverWebhookDeps) {
    this.random = deps.random ?? Math.random;
    this.pause = deps.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * One of the endpoint's slots, waiting up to SLOT_WAIT_MS for one: a fast receiver frees its slots
   * within milliseconds, so a burst to it waits little; a slow one keeps them, and the delivery goes
   * back on the queue after the wait instead of holding a worker for the receiver's timeout.
   */
  private async acquireSlot(endpointId: string, token: string): Promise<number | null> {
    const leaseMs = (this.deps.attemptTimeoutMs ?? DELIVERY_TIMEOUT_MS) + ENDPOINT_SLOT_LEASE_MARGIN_MS;
    const started = this.deps.clock.now().getTime();
    for (;;) {
      const now = this.deps.clock.now();
      const slot = await this.deps.store.acquireSlot(endpointId, token, now, new Date(now.getTime() + leaseMs));
      if (slot !== null || now.getTime() - started >= SLOT_WAIT_MS) return slot;
      await this.pause(SLOT_RETRY_MS * (0.5 + this.random()));
    }
  }

  private decrypt(encrypted: string, endpointId: string, now: Date): Promise<string> {
    // Keyed by the endpoint too, so the cache keeps the cipher's binding of a secret to its endpoint.
    const key = `${endpointId}\u0000${encrypted}`;
    const cached = this.secrets.get(key);
    if (cached && cached.until > now.getTime()) return cached.plain;
    if (this.secrets.size >= SECRET_CACHE_ENTRIES) this.secrets.clear();
    const plain = this.deps.cipher.decrypt(encrypted, secretContext(endpointId));
    // A failed decrypt is not remembered: the next delivery tries again.
    plain.catch(() => this.secrets.delete(key));
    this.secrets.set(key, { plain, until: now.getTime() + SECRET_CACHE_MS });
    return plain;
  }

  async execute(message: WebhookDeliveryMessage): Promise<DeliveryResult> {
    const { store } = this.deps;
    const now = this.deps.clock.now();
    if (message.notBefore !== null && Date.parse(message.notBefore) > now.getTime()) {
      const seconds = Math.ceil((Date.parse(message.notBefore) - now.getTime()) / 1000);
      await this.deps.queue.send([message], Math.min(seconds, MAX_QUEUE_DELAY_SECONDS));
      return { outcome: 'waiting', reason: 'not_before' };
    }
    const delivery = await store.getDelivery(message.endpointId, message.eventCreatedAt, message.eventId);
    if (!delivery) return { outcome: 'dropped', reason: 'no such delivery' };
    if (delivery.status !== 'pending') return { outcome: 'dropped', reason: 'delivery settled' };
    const attempt = delivery.attempts + 1;
    const due = delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) <= now.getTime();
    if (message.attempt !== attempt && !due) return { outcome: 'dropped', reason: 'attempt already made' };
    const endpoint = await store.getEndpoint(message.userId, message.endpointId);
    if (!endpoint || endpoint.status !== 'enabled') {
      await store.setDeliveryStatus(delivery, 'cancelled', null);
      return { outcome: 'dropped', reason: endpoint ? 'endpoint disabled' : 'endpoint deleted' };
    }
    const event = await store.getEvent(message.eventId);
    if (!event) {
      await store.setDeliveryStatus(delivery, 'cancelled', null);
      return { outcome: 'dropped', reason: 'event expired' };
    }

    const token = randomUUID();
    const leaseMs = (this.deps.attemptTimeoutMs ?? DELIVERY_TIMEOUT_MS) + ENDPOINT_SLOT_LEASE_MARGIN_MS;
    if (!(await store.claimAttempt(delivery, attempt, { token, now, until: new Date(now.getTime() + leaseMs) }))) {
      return { outcome: 'dropped', reason: 'attempt claimed by another message' };
    }
    const slot = await this.acquireSlot(endpoint.id, token);
    if (slot === null) {
      await store.releaseAttempt(delivery, token);
      await this.deps.queue.send([{ ...message, attempt }], BUSY_ENDPOINT_WAIT_SECONDS + Math.floor(this.random() * BUSY_ENDPOINT_WAIT_SECONDS));
      return { outcome: 'waiting', reason: 'endpoint_busy' };
    }
    let entry: DeliveryAttempt;
    try {
      const secrets = await Promise.all(activeSecrets(endpoint.secrets, now).map((secret) => this.decrypt(secret.encrypted, endpoint.id, now)));
      const sentAt = this.deps.clock.now();
      const answer = await this.deps.sender.send({
        url: endpoint.url,
        headers: { 'content-type': 'application/json', 'user-agent': 'social-publishing-webhooks/1', ...signedHeaders(event.id, sentAt, event.body, secrets) },
        body: event.body,
      });
      entry = { at: sentAt.toISOString(), statusCode: answer.statusCode, latencyMs: answer.latencyMs, error: answer.error };
    } finally {
      await store.releaseSlot(endpoint.id, slot, token);
    }

    const after = this.deps.clock.now();
    // No answer (timeout, refused address or connection) is a failure whose error the sender named.
    const verdict = entry.statusCode === null ? null : classifyAnswer(entry.statusCode);
    if (verdict?.kind === 'failed' && entry.error === null) entry = { ...entry, error: verdict.error };

    if (verdict?.kind === 'succeeded') {
      await store.recordAttempt(delivery, attempt, { entry, status: 'succeeded', nextAttemptAt: null });
      if (endpoint.failingSince !== null) await store.clearFailing(endpoint.userId, endpoint.id);
      return { outcome: 'succeeded', statusCode: entry.statusCode };
    }
    if (verdict?.kind === 'gone') {
      await store.recordAttempt(delivery, attempt, { entry, status: 'failed', nextAttemptAt: null });
      await store.disableEndpoint(endpoint.userId, endpoint.id, `The endpoint answered 410 Gone at ${after.toISOString()}: it asked to receive nothing more.`, after);
      return { outcome: 'gone', statusCode: 410 };
    }

    const delayMs = message.manual ? null : retryDelayMs(attempt, this.random());
    const nextAttemptAt = delayMs === null ? null : new Date(after.getTime() + delayMs).toISOString();
    const recorded = await store.recordAttempt(delivery, attempt, { entry, status: nextAttemptAt === null ? 'failed' : 'pending', nextAttemptAt });
    const failingSince = await store.markFailing(endpoint.userId, endpoint.id, after);
    if (shouldDisableForFailures(failingSince, after)) {
      await store.disableEndpoint(
        endpoint.userId,
        endpoint.id,
        `Every delivery since ${failingSince} failed (3 days): the endpoint was disabled. Fix it, then enable it again.`,
        after,
      );
      return { outcome: 'failed', statusCode: entry.statusCode };
    }
    if (!recorded || nextAttemptAt === null || delayMs === null) return { outcome: 'failed', statusCode: entry.statusCode };
    const delaySeconds = Math.ceil(delayMs / 1000);
    await this.deps.queue.send(
      [{ ...message, attempt: attempt + 1, notBefore: delaySeconds > MAX_QUEUE_DELAY_SECONDS ? nextAttemptAt : null }],
      Math.min(delaySeconds, MAX_QUEUE_DELAY_SECONDS),
    );
    return { outcome: 'retrying', statusCode: entry.statusCode };
  }
}
