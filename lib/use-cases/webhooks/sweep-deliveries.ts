/**
 * The sweeper's part for webhooks: no pending delivery may be lost. A delivery's next attempt
 * travels as a queue message, and that message can be lost: a worker killed between recording
 * attempt n and sending the message for n+1, a router killed between its writes and its send, a
 * local queue emptied by a restart. The delivery then sits `pending` in the outbox (the byPending
 * index: lib/store/tables.ts) with nothing on its way.
 *
 * Every run reads each shard's entries more than `graceMs` past their time (oldest first, at most
 * `limitPerShard`), stamps each with one conditional write that moves its entry `resendIntervalMs`
 * on (so a second sweeper, which listed the same entry, stamps nothing and sends nothing, and a
 * re-sent message lost again is found again after the interval), and queues the delivery's next
 * attempt again. The stamp holds only while the delivery is pending and no worker holds its
 * attempt's claim. A duplicate message is harmless (the worker judges by the delivery item and
 * claims the attempt), a lost one is not, so the sweep errs towards sending.
 *
 * A look-ahead run (the first of a process, or after the publish queue was created anew: the
 * local stack's queues after a restart) takes every entry due within the SQS delay window at
 * once, with its remaining delay, as the posts' sweep does.
 */
// The SQS limit, from the module the sweeper already carries (the delivery worker's pulls in signing).
import { MAX_QUEUE_DELAY_SECONDS } from '../../domain/publishing.js';
import type { Clock } from '../ports/clock.js';
import type { PendingDeliveries, PendingDeliveryEntry, WebhookDeliveryMessage, WebhookQueue } from '../ports/webhooks.js';

export interface SweepDeliveriesDeps {
  pending: PendingDeliveries;
  queue: WebhookQueue;
  clock: Clock;
  /** Shards of the byPending index (PENDING_DELIVERY_SHARDS). */
  shards: number;
  /** How late a pending delivery may be before its message counts as lost. */
  graceMs?: number;
  /** How long after a sweep's resend the same delivery may be re-sent again. */
  resendIntervalMs?: number;
  /** Entries examined per shard and run, so one run stays within its time. */
  limitPerShard?: number;
}

export interface SweepDeliveriesResult {
  examined: number;
  resent: number;
  failedToSend: number;
}

export class SweepDeliveries {
  private readonly graceMs: number;
  private readonly resendIntervalMs: number;
  private readonly limit: number;

  constructor(private readonly deps: SweepDeliveriesDeps) {
    this.graceMs = deps.graceMs ?? 60_000;
    this.resendIntervalMs = deps.resendIntervalMs ?? 60_000;
    this.limit = deps.limitPerShard ?? 200;
  }

  async execute(options: { lookAhead: boolean }): Promise<SweepDeliveriesResult> {
    const now = this.deps.clock.now();
    const perShard = await Promise.all(Array.from({ length: this.deps.shards }, (_, shard) => this.sweepShard(shard, now, options.lookAhead)));
    return perShard.reduce((sum, one) => ({
      examined: sum.examined + one.examined,
      resent: sum.resent + one.resent,
      failedToSend: sum.failedToSend + one.failedToSend,
    }));
  }

  private async sweepShard(shard: number, now: Date, lookAhead: boolean): Promise<SweepDeliveriesResult> {
    const to = lookAhead ? new Date(now.getTime() + MAX_QUEUE_DELAY_SECONDS * 1000) : new Date(now.getTime() - this.graceMs);
    const entries = await this.deps.pending.listPending(shard, { to, limit: this.limit });
    // Grouped by their delay: one SendMessageBatch per group of ten (a routine run's are all 0).
    const byDelay = new Map<number, WebhookDeliveryMessage[]>();
    for (const entry of entries) {
      const at = Math.max(entryTime(entry) ?? now.getTime(), now.getTime());
      const delivery = await this.deps.pending.stampPending(entry, { now, resendAt: new Date(at + this.resendIntervalMs) });
      if (!delivery) continue;
      const nextAttemptAt = delivery.nextAttemptAt === null ? now.getTime() : Date.parse(delivery.nextAttemptAt);
      const delaySeconds = Math.max(0, Math.ceil((nextAttemptAt - now.getTime()) / 1000));
      const message: WebhookDeliveryMessage = {
        userId: delivery.userId,
        endpointId: delivery.endpointId,
        eventId: delivery.eventId,
        eventCreatedAt: delivery.eventCreatedAt,
        attempt: delivery.attempts + 1,
        notBefore: delaySeconds > MAX_QUEUE_DELAY_SECONDS ? new Date(nextAttemptAt).toISOString() : null,
      };
      const delay = Math.min(delaySeconds, MAX_QUEUE_DELAY_SECONDS);
      byDelay.set(delay, [...(byDelay.get(delay) ?? []), message]);
    }
    // A send that fails is left to the run after the stamp's interval.
    const sent = await Promise.allSettled([...byDelay].map(async ([delay, messages]) => {
      await this.deps.queue.send(messages, delay);
      return messages.length;
    }));
    let resent = 0;
    let failedToSend = 0;
    sent.forEach((result, index) => {
      const count = [...byDelay.values()][index]?.length ?? 0;
      if (result.status === 'fulfilled') resent += count;
      else failedToSend += count;
    });
    return { examined: entries.length, resent, failedToSend };
  }
}

/** The time an entry is listed at (its sort key starts with it). */
function entryTime(entry: PendingDeliveryEntry): number | null {
  const at = Date.parse(entry.pendingSk.slice(0, entry.pendingSk.indexOf('#')));
  return Number.isNaN(at) ? null : at;
}
