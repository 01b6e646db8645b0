/**
 * The delivery worker's use case: one attempt of one delivery (beyond-v1.md "Delivery").
 *
 * - Signed by Standard Webhooks with every active secret (the current one, and a rotated one
 *   within its 24 h overlap); `webhook-id` is the event id, the same on every attempt.
 * - Any 2xx succeeds; 410 disables the endpoint at once; anything else (other statuses, a timeout,
 *   a refused address or connection) is tried again on the schedule of lib/domain/webhooks.ts, and
 *   an endpoint whose deliveries have all failed for 3 days is disabled with a reason.
 * - A message names one endpoint and one or more events (the router's batch: every event of a
 *   stream batch for that endpoint; a retry, resend or test: one). The endpoint, the deliveries and
 *   the events are read together (BatchGetItem), the secrets decrypted once.
 * - Bounded per endpoint: the message then takes up to ENDPOINT_IN_FLIGHT_LIMIT of its endpoint's
 *   in-flight slots (leased items: one Query reads them, one conditional write per free one) and
 *   delivers its events on that many lanes, one request in flight per lane (the answer is recorded
 *   beside the lane, which goes on to the next event), so the receiver never has more than
 *   10 requests of ours open, whichever messages they came from. A lane gives its slot back as soon
 *   as nothing is left for it, and a message with fewer slots than work takes more as they come
 *   free (one lane each). Lanes start new requests for ENDPOINT_TURN_MS at most; what was not
 *   started goes back on the queue (in messages of MAX_EVENTS_PER_MESSAGE at most). When no
 *   slot frees within SLOT_WAIT_MS (BATCH_SLOT_WAIT_MS for the router's batch messages, which wait
 *   for the burst's earlier ones), the endpoint being slow or dead and holding them, the whole
 *   message goes back on the queue for a few seconds, costing no attempt, and the worker is free for
 *   other customers' deliveries.
 * - SQS delays a message by 15 minutes at most, so a later retry is sent with the longest delay
 *   and `notBefore`; a message received before its time is sent again (chained), costing no attempt.
 * - A deleted or disabled endpoint receives nothing more.
 * - The delivery item, not the message, says which attempt is next (its attempts + 1): a message is
 *   taken when it names that attempt, or when the delivery is pending and due (a message re-sent
 *   by the sweeper, or an older one redelivered after the worker that made its attempt died
 *   before sending the next one). Otherwise (settled, or a duplicate before the next attempt's
 *   time) it is dropped.
 * - Claims: every attempt is claimed (a conditional write, a lease) before it is sent, so two
 *   messages racing for it send it once. A message claims all the attempts it names together, while
 *   it reads them and takes its slots (the store writes claims asked together as one request:
 *   lib/store/coalesced-updates.ts; a claim's condition is the delivery's own state, so it needs no
 *   read first), so no lane waits for a round trip before each request; a claim one per request, on the lane,
 *   held a burst to one database round trip per delivery per lane. The lease covers all the message
 *   may still do with them (the wait for a slot, the turn, the last request's timeout, a margin), as
 *   the slots' does: a live worker never outlasts it, a crashed one's claims free themselves and the
 *   attempts are made again. What the message does not send is never left blocked: without slots,
 *   at the turn's end or when the message fails, the claims of what was not started are given back
 *   (together) before it goes back on the queue; after a 410 the cancel drops them. An attempt
 *   another message holds is dropped here: its holder sends it, or gives it back and requeues it.
 * - The answers are recorded beside the lanes, and the store writes the records that come while
 *   earlier ones are being written together (each keeps its own condition and answer).
 */
import { randomUUID } from 'node:crypto';
import {
  activeSecrets,
  BATCH_SLOT_WAIT_MS,
  classifyAnswer,
  DELIVERY_TIMEOUT_MS,
  ENDPOINT_IN_FLIGHT_LIMIT,
  ENDPOINT_SLOT_LEASE_MARGIN_MS,
  ENDPOINT_TURN_MS,
  MAX_EVENTS_PER_MESSAGE,
  SLOT_RETRY_MS,
  SLOT_WAIT_MS,
  retryDelayMs,
  slotRetryPauseMs,
  shouldDisableForFailures,
  secretContext,
  signedHeaders,
  type WebhookEndpoint,
} from '../../domain/webhooks.js';
import { MAX_QUEUE_DELAY_SECONDS } from '../../domain/publishing.js';
import type { Clock } from '../ports/clock.js';
import type { TokenCipher } from '../ports/token-cipher.js';
import {
  isBatchMessage,
  type DeliveryAttempt,
  type DeliveryRecord,
  type WebhookDeliveryReads,
  type WebhookBatchMessage,
  type WebhookEventRecord,
  type WebhookQueue,
  type WebhookQueueMessage,
  type WebhookSender,
  type WebhookStore,
} from '../ports/webhooks.js';

/**
 * Decrypted signing secrets kept in the worker's memory for a few minutes, keyed by their
 * endpoint and ciphertext (a rotation makes a new one): KMS charges per Decrypt, and without this every delivery
 * would pay one (about $3 per million deliveries, more than all the rest of a delivery). Bounded.
 */
const SECRET_CACHE_MS = 5 * 60_000;
const SECRET_CACHE_ENTRIES = 1_000;

/**
 * How long a message goes back on the queue for when its endpoint's slots stayed held (and up to as
 * long again, at random). Mostly a burst's later messages waiting for its earlier ones, whose slots
 * come free within a second or two; a dead endpoint's waiting messages cost one slot Query per try.
 */
const BUSY_ENDPOINT_WAIT_SECONDS = 1;
/** Deliveries of one message judged (and cancelled, when their endpoint is gone) at the same time. */
const READ_CONCURRENCY = 25;

export type DeliveryResult =
  | { outcome: 'succeeded' | 'gone' | 'failed' | 'retrying'; statusCode: number | null }
  | { outcome: 'waiting'; reason: 'not_before' | 'endpoint_busy' | 'turn_over' }
  | { outcome: 'dropped'; reason: string };

export interface DeliverWebhookDeps {
  store: WebhookStore & WebhookDeliveryReads;
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

/** One event of a message: the attempt the message names (1 for the router's first attempts). */
interface Wanted {
  eventId: string;
  eventCreatedAt: string;
  attempt: number;
  manual: boolean;
}

/** A message's deliveries and their events, by event id, as read (readForDelivery). */
type MessageRecords = Awaited<ReturnType<WebhookDeliveryReads['readForDelivery']>>['records'];

/** Which delivery an attempt is of: its endpoint and event (what a message names). */
type DeliveryKey = Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>;

/** A delivery found pending and due for the attempt: what a lane sends. */
interface Ready {
  wanted: Wanted;
  delivery: DeliveryRecord;
  attempt: number;
  event: WebhookEventRecord;
}

/** How long a message waits for a slot, and whether it is a single attempt (which backs off) or the router's batch. */
interface SlotWait {
  ms: number;
  single: boolean;
}

/** The endpoint's slots being taken for a message, and the way to give them back. */
interface SlotsTaking {
  slots: Promise<number[]>;
  giveBack: () => Promise<void>;
}

/** The events a message names, each with the attempt it names (1 for the router's first attempts). */
function wantedOf(message: WebhookQueueMessage): Wanted[] {
  return isBatchMessage(message)
    ? message.events.map((event) => ({ ...event, attempt: 1, manual: false }))
    : [{ eventId: message.eventId, eventCreatedAt: message.eventCreatedAt, attempt: message.attempt, manual: message.manual === true }];
}

/** The router's batch messages wait longer for slots, and keep trying every SLOT_RETRY_MS. */
function slotWaitOf(message: WebhookQueueMessage): SlotWait {
  const single = !isBatchMessage(message);
  return { ms: single ? SLOT_WAIT_MS : BATCH_SLOT_WAIT_MS, single };
}

function keyOf(message: WebhookQueueMessage, one: Wanted): DeliveryKey {
  return { endpointId: message.endpointId, eventId: one.eventId, eventCreatedAt: one.eventCreatedAt };
}

/**
 * What was claimed but is not to be sent: a cancel in prepare dropped its claim with it, and
 * nothing else can have been won (a claim's condition is what prepare checks), but it is given back
 * all the same. Counted by the message's entries, not event ids: a merged message may name an event
 * twice, and only one of the two can hold its claim.
 */
function claimsNotToSend(wanted: readonly Wanted[], claimedOnes: ReadonlySet<Wanted>, ready: readonly Ready[]): Wanted[] {
  const readyOnes = new Set(ready.map((one) => one.wanted));
  return wanted.filter((one) => claimedOnes.has(one) && !readyOnes.has(one));
}

export class DeliverWebhook {
  private readonly random: () => number;
  private readonly pause: (ms: number) => Promise<void>;
  private readonly secrets = new Map<string, { plain: Promise<string>; until: number }>();
  private readonly timeoutMs: number;

  constructor(private readonly deps: DeliverWebhookDeps) {
    this.random = deps.random ?? Math.random;
    this.pause = deps.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.timeoutMs = deps.attemptTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  /**
   * Up to `wanted` of the endpoint's slots, waiting up to `wait.ms` for at least one: a fast
   * receiver's slots come free as soon as the message holding them is done, so a burst waits
   * little; a slow one keeps them, and the message goes back on the queue after the wait instead
   * of holding a worker for the receiver's timeout.
   */
  private async acquireSlots(endpointId: string, token: string, wanted: number, wait: SlotWait, stillWanted: () => boolean): Promise<number[]> {
    const leaseMs = this.slotLeaseMs();
    const started = this.deps.clock.now().getTime();
    for (let tries = 0; ; tries += 1) {
      const now = this.deps.clock.now();
      const slots = await this.deps.store.acquireSlots(endpointId, token, wanted, now, new Date(now.getTime() + leaseMs));
      if (slots.length > 0 || now.getTime() - started >= wait.ms) return slots;
      // A single message backs off (see SLOT_RETRY_MAX_MS): a hanging endpoint gathers many.
      await this.pause(slotRetryPauseMs(tries, wait.single, this.random()));
      // The message found nothing to send meanwhile: it waits no longer.
      if (!stillWanted()) return [];
    }
  }

  /** Long enough for the turn and the last attempt started in it: a live worker never outlasts it. */
  private slotLeaseMs(): number {
    return ENDPOINT_TURN_MS + this.timeoutMs + ENDPOINT_SLOT_LEASE_MARGIN_MS;
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

  /**
   * The algorithm, step by step: a message early for its time waits on the queue; the endpoint,
   * deliveries and events are read while the attempts are claimed and the endpoint's slots taken;
   * each delivery is judged; the claims of what is not to be sent are given back and a due
   * delivery's own next attempt claimed; without slots everything goes back on the queue; with
   * them the lanes deliver for one turn; what no lane started is cancelled (the endpoint answered
   * 410) or goes back on the queue.
   */
  async execute(message: WebhookQueueMessage): Promise<DeliveryResult[]> {
    const now = this.deps.clock.now();
    const notYetDue = await this.waitForNotBefore(message, now);
    if (notYetDue) return [notYetDue];
    const wanted = wantedOf(message);
    const token = randomUUID();
    const slotWait = slotWaitOf(message);
    const slotsTaking = this.startTakingSlots(message.endpointId, token, wanted.length, slotWait);
    const { endpoint, records, claimedWhileReading } = await this.readWhileClaiming(message, wanted, token, slotWait.ms, slotsTaking);
    const { results, ready } = await this.prepareAll(endpoint, wanted, records, now);
    const claimedOnes = new Set(wanted.filter((_, index) => claimedWhileReading[index]));
    const claimedNotToSend = claimsNotToSend(wanted, claimedOnes, ready).map((one) => keyOf(message, one));
    if (ready.length === 0 || !endpoint) {
      await Promise.all([slotsTaking.giveBack(), this.release(claimedNotToSend, token)]);
      return results;
    }
    if (claimedNotToSend.length > 0) await this.release(claimedNotToSend, token);
    const claimed = await this.claimDueOtherAttempts(ready, claimedOnes, token, slotWait.ms);
    for (let index = ready.length - claimed.length; index > 0; index--) results.push({ outcome: 'dropped', reason: 'attempt claimed by another message' });
    const slots = await slotsTaking.slots;
    if (slots.length === 0) return [...results, ...(await this.putBackWhileBusy(message, claimed, token))];
    const turn = await this.deliverOnLanes(endpoint, claimed, slots, token, now);
    return [...results, ...turn.results, ...(await this.handOverNotStarted(message, turn.notStarted, turn.gone, token))];
  }

  /**
   * A message received before its `notBefore` (a retry later than SQS's longest delay) is sent
   * again with the delay left, costing no attempt: its result, or null when it is due.
   */
  private async waitForNotBefore(message: WebhookQueueMessage, now: Date): Promise<DeliveryResult | null> {
    if (isBatchMessage(message) || message.notBefore === null || Date.parse(message.notBefore) <= now.getTime()) return null;
    const seconds = Math.ceil((Date.parse(message.notBefore) - now.getTime()) / 1000);
    await this.deps.queue.send([message], Math.min(seconds, MAX_QUEUE_DELAY_SECONDS));
    return { outcome: 'waiting', reason: 'not_before' };
  }

  /**
   * Starts taking the endpoint's slots (awaited apart: they are taken while the message's records
   * are read), with the way to give them back: a message found to have nothing to send stops
   * waiting for slots at once and releases those it took.
   */
  private startTakingSlots(endpointId: string, token: string, events: number, slotWait: SlotWait): SlotsTaking {
    let slotsWanted = true;
    const slots = this.acquireSlots(endpointId, token, Math.min(events, ENDPOINT_IN_FLIGHT_LIMIT), slotWait, () => slotsWanted);
    // Its failure is met where it is awaited; this only keeps it from counting as unhandled meanwhile.
    slots.catch(() => undefined);
    return {
      slots,
      giveBack: async () => {
        slotsWanted = false;
        const taken = await slots.catch((): number[] => []);
        await Promise.all(taken.map((slot) => this.deps.store.releaseSlot(endpointId, slot, token)));
      },
    };
  }

  /**
   * The endpoint, and every delivery and event of the message (BatchGetItem, the endpoint in the
   * first request), read while the attempts the message names are claimed (together: one request) and the endpoint's
   * slots taken: a claim's condition is the delivery's own state (its attempts, pending, nobody
   * holding it), so it needs nothing read first, and in a burst each of these was a round trip on
   * the busy database between the router's message and the request to the receiver.
   */
  private async readWhileClaiming(
    message: WebhookQueueMessage,
    wanted: readonly Wanted[],
    token: string,
    slotWaitMs: number,
    slotsTaking: SlotsTaking,
  ): Promise<{ endpoint: WebhookEndpoint | null; records: MessageRecords; claimedWhileReading: boolean[] }> {
    const { store } = this.deps;
    try {
      const [{ endpoint, records }, claimedWhileReading] = await Promise.all([
        store.readForDelivery(message.userId, message.endpointId, wanted),
        this.claim(wanted.map((one) => ({ key: keyOf(message, one), attempt: one.attempt })), token, slotWaitMs),
      ]);
      return { endpoint, records, claimedWhileReading };
    } catch (error) {
      // The message fails (SQS hands it over again): the slots it took are given back first.
      await slotsTaking.giveBack().catch(() => undefined);
      throw error;
    }
  }

  /** Every delivery of the message judged (prepare): the ones to send, and the results of the others. */
  private async prepareAll(
    endpoint: WebhookEndpoint | null,
    wanted: readonly Wanted[],
    records: MessageRecords,
    now: Date,
  ): Promise<{ results: DeliveryResult[]; ready: Ready[] }> {
    const results: DeliveryResult[] = [];
    const ready: Ready[] = [];
    await withConcurrency(wanted, READ_CONCURRENCY, async (one) => {
      const found = await this.prepare(endpoint, one, records.get(one.eventId) ?? { delivery: null, event: null }, now);
      if ('outcome' in found) results.push(found);
      else ready.push(found);
    });
    return { results, ready };
  }

  /**
   * A message that names another attempt than the delivery's next (a due delivery re-sent by the
   * sweeper, an older message) claims the delivery's own next attempt now: the ready deliveries
   * whose attempt this message holds, in order.
   */
  private async claimDueOtherAttempts(ready: readonly Ready[], claimedOnes: Set<Wanted>, token: string, slotWaitMs: number): Promise<Ready[]> {
    const dueOtherAttempt = ready.filter((one) => !claimedOnes.has(one.wanted) && one.attempt !== one.wanted.attempt);
    const otherAttemptClaimed = await this.claim(dueOtherAttempt.map((one) => ({ key: one.delivery, attempt: one.attempt })), token, slotWaitMs);
    dueOtherAttempt.forEach((one, index) => otherAttemptClaimed[index] && claimedOnes.add(one.wanted));
    return ready.filter((one) => claimedOnes.has(one.wanted));
  }

  /** No slot came free in time: the claims are given back at once, so the message put back on the queue finds them free. */
  private async putBackWhileBusy(message: WebhookQueueMessage, claimed: readonly Ready[], token: string): Promise<DeliveryResult[]> {
    await this.release(claimed, token);
    if (claimed.length > 0) await this.requeue(message, claimed, BUSY_ENDPOINT_WAIT_SECONDS + Math.floor(this.random() * (BUSY_ENDPOINT_WAIT_SECONDS + 1)));
    return claimed.map((): DeliveryResult => ({ outcome: 'waiting', reason: 'endpoint_busy' }));
  }

  /**
   * One turn of deliveries: one request in flight per slot held; a lane takes the next delivery
   * until none is left, the turn is over, the endpoint answered 410 or a lane failed, and then
   * gives its slot back at once (another message for the endpoint may be waiting for it). The
   * results of the attempts made, what no lane started, and whether the endpoint answered 410.
   */
  private async deliverOnLanes(
    endpoint: WebhookEndpoint,
    claimed: readonly Ready[],
    slots: number[],
    token: string,
    now: Date,
  ): Promise<{ results: DeliveryResult[]; notStarted: Ready[]; gone: boolean }> {
    const { store } = this.deps;
    const results: DeliveryResult[] = [];
    const turnEnds = this.deps.clock.now().getTime() + ENDPOINT_TURN_MS;
    let next = 0;
    let gone = false;
    let failed = false;
    let lanesDone = false;
    const lanes: Promise<void>[] = [];
    const released = new Set<number>();
    // Recording an answer (and queuing its retry) does not hold the slot: the request is over.
    const settling: Promise<void>[] = [];
    const mayStartNext = (): boolean => next < claimed.length && !gone && !failed && this.deps.clock.now().getTime() < turnEnds;
    try {
      const secrets = await Promise.all(activeSecrets(endpoint.secrets, now).map((secret) => this.decrypt(secret.encrypted, endpoint.id, now)));
      const lane = async (slot: number): Promise<void> => {
        try {
          while (mayStartNext()) {
            const one = claimed[next++]!;
            try {
              const sent = await this.send(endpoint, one, secrets);
              if (sent.statusCode === 410) gone = true;
              settling.push(
                this.settle(endpoint, one, sent, token).then(
                  (result) => void results.push(result),
                  (error: unknown) => {
                    failed = true;
                    throw error;
                  },
                ),
              );
            } catch (error) {
              failed = true;
              throw error;
            }
          }
        } finally {
          released.add(slot);
          await store.releaseSlot(endpoint.id, slot, token);
        }
      };
      for (const slot of slots) lanes.push(lane(slot));
      // A message that got fewer slots than it has work for (other messages for the endpoint held
      // the rest: a burst routed in parallel batches is several messages per endpoint) takes more
      // as they come free, one lane each, so the endpoint's 10 stay in use between its messages.
      const slotsHeld = (): number => slots.length - released.size;
      while (mayStartNext()) {
        await this.pause(SLOT_RETRY_MS * (0.5 + this.random()));
        const more = Math.min(claimed.length - next, ENDPOINT_IN_FLIGHT_LIMIT - slotsHeld());
        if (!mayStartNext() || more <= 0) continue;
        const at = this.deps.clock.now();
        const taken = await store.acquireSlots(endpoint.id, token, more, at, new Date(at.getTime() + this.slotLeaseMs()));
        slots.push(...taken);
        for (const slot of taken) lanes.push(lane(slot));
      }
      // Every lane ends (and gives its slot back) before the message is done, also when one failed.
      const ended = await Promise.allSettled(lanes);
      const failure = ended.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failure) throw failure.reason;
      lanesDone = true;
    } finally {
      // The slots of lanes that never ran (the secrets could not be read).
      await Promise.all(slots.filter((slot) => !released.has(slot)).map((slot) => store.releaseSlot(endpoint.id, slot, token)));
      // Every record written (or failed) before the message is done: a crash before this line
      // leaves the claim, and the attempt is made again once it runs out; a failed record fails the
      // message (SQS hands it over again).
      const recorded = await Promise.allSettled(settling);
      const failure = recorded.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      // When the message fails, the claims of what no lane started are given back, so the message
      // handed over again need not wait for their lease; one that cannot be is left to its lease.
      if (!lanesDone || failure) await this.release(claimed.slice(next), token).catch(() => undefined);
      if (failure) throw failure.reason;
    }
    return { results, notStarted: claimed.slice(next), gone };
  }

  /**
   * What no lane started: after a 410 it is cancelled, as a later attempt would (the cancel drops
   * the claim with it); after a turn that ran out (a slow receiver) it is given back and goes on
   * the queue at once, behind other work.
   */
  private async handOverNotStarted(message: WebhookQueueMessage, notStarted: readonly Ready[], gone: boolean, token: string): Promise<DeliveryResult[]> {
    if (notStarted.length === 0) return [];
    if (gone) {
      await Promise.all(notStarted.map((one) => this.deps.store.setDeliveryStatus(one.delivery, 'cancelled', null)));
      return notStarted.map((): DeliveryResult => ({ outcome: 'dropped', reason: 'endpoint disabled' }));
    }
    await this.release(notStarted, token);
    await this.requeue(message, notStarted, 0);
    return notStarted.map((): DeliveryResult => ({ outcome: 'waiting', reason: 'turn_over' }));
  }

  /**
   * Claims the attempts (asked together, so the store writes them in one request), leased for
   * everything the message may still do with them: the wait for a slot, the turn, the last
   * request's timeout, and a margin. A live worker never outlasts it; a crashed one's claims free
   * themselves. The attempts claimed, in the message's order; the others are another message's.
   */
  private async claim(attempts: readonly { key: DeliveryKey; attempt: number }[], token: string, slotWaitMs: number): Promise<boolean[]> {
    const now = this.deps.clock.now();
    const until = new Date(now.getTime() + slotWaitMs + ENDPOINT_TURN_MS + this.timeoutMs + ENDPOINT_SLOT_LEASE_MARGIN_MS);
    return Promise.all(attempts.map((one) => this.deps.store.claimAttempt(one.key, one.attempt, { token, now, until })));
  }

  /** Gives back the claims of attempts not sent (together: one request). */
  private async release(claimed: readonly (DeliveryKey | Ready)[], token: string): Promise<void> {
    await Promise.all(claimed.map((one) => this.deps.store.releaseAttempt('delivery' in one ? one.delivery : one, token)));
  }

  /**
   * The delivery as the message names it, when it is pending and this attempt is due: the delivery
   * item says which attempt is next (see above); a deleted or disabled endpoint, or an expired event,
   * cancels it.
   */
  private async prepare(
    endpoint: WebhookEndpoint | null,
    wanted: Wanted,
    { delivery, event }: { delivery: DeliveryRecord | null; event: WebhookEventRecord | null },
    now: Date,
  ): Promise<Ready | DeliveryResult> {
    const { store } = this.deps;
    if (!delivery) return { outcome: 'dropped', reason: 'no such delivery' };
    if (delivery.status !== 'pending') return { outcome: 'dropped', reason: 'delivery settled' };
    const attempt = delivery.attempts + 1;
    const due = delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) <= now.getTime();
    if (wanted.attempt !== attempt && !due) return { outcome: 'dropped', reason: 'attempt already made' };
    if (!endpoint || endpoint.status !== 'enabled') {
      await store.setDeliveryStatus(delivery, 'cancelled', null);
      return { outcome: 'dropped', reason: endpoint ? 'endpoint disabled' : 'endpoint deleted' };
    }
    if (!event) {
      await store.setDeliveryStatus(delivery, 'cancelled', null);
      return { outcome: 'dropped', reason: 'event expired' };
    }
    return { wanted, delivery, attempt, event };
  }

  /** Puts deliveries not attempted back on the queue, in the message's own kind, costing no attempt. */
  private async requeue(message: WebhookQueueMessage, notAttempted: readonly Ready[], delaySeconds: number): Promise<void> {
    if (isBatchMessage(message)) {
      // A merged message (mergeBatchMessages) may hold more events than one message may carry.
      const events = notAttempted.map(({ wanted }) => ({ eventId: wanted.eventId, eventCreatedAt: wanted.eventCreatedAt }));
      const messages: WebhookBatchMessage[] = [];
      for (let start = 0; start < events.length; start += MAX_EVENTS_PER_MESSAGE) {
        messages.push({ userId: message.userId, endpointId: message.endpointId, events: events.slice(start, start + MAX_EVENTS_PER_MESSAGE) });
      }
      await this.deps.queue.send(messages, delaySeconds);
      return;
    }
    await this.deps.queue.send(notAttempted.map((one) => ({ ...message, attempt: one.attempt })), delaySeconds);
  }

  /** One attempt of one delivery, on a slot and with a claim the caller holds: its answer. */
  private async send(endpoint: WebhookEndpoint, ready: Ready, secrets: readonly string[]): Promise<DeliveryAttempt> {
    const { event } = ready;
    const sentAt = this.deps.clock.now();
    const answer = await this.deps.sender.send({
      url: endpoint.url,
      headers: { 'content-type': 'application/json', 'user-agent': 'social-publishing-webhooks/1', ...signedHeaders(event.id, sentAt, event.body, [...secrets]) },
      body: event.body,
    });
    return { at: sentAt.toISOString(), statusCode: answer.statusCode, latencyMs: answer.latencyMs, error: answer.error };
  }

  /** The answer of an attempt recorded, with what follows from it: the endpoint disabled, or the retry queued. */
  private async settle(endpoint: WebhookEndpoint, ready: Ready, answered: DeliveryAttempt, claimToken: string): Promise<DeliveryResult> {
    const { store } = this.deps;
    const { delivery, attempt, event, wanted } = ready;
    let entry = answered;
    const after = this.deps.clock.now();
    // No answer (timeout, refused address or connection) is a failure whose error the sender named.
    const verdict = entry.statusCode === null ? null : classifyAnswer(entry.statusCode);
    if (verdict?.kind === 'failed' && entry.error === null) entry = { ...entry, error: verdict.error };

    if (verdict?.kind === 'succeeded') {
      await store.recordAttempt(delivery, attempt, claimToken, { entry, status: 'succeeded', nextAttemptAt: null });
      if (endpoint.failingSince !== null) await store.clearFailing(endpoint.userId, endpoint.id);
      return { outcome: 'succeeded', statusCode: entry.statusCode };
    }
    if (verdict?.kind === 'gone') {
      await store.recordAttempt(delivery, attempt, claimToken, { entry, status: 'failed', nextAttemptAt: null });
      await store.disableEndpoint(endpoint.userId, endpoint.id, `The endpoint answered 410 Gone at ${after.toISOString()}: it asked to receive nothing more.`, after);
      return { outcome: 'gone', statusCode: 410 };
    }

    const delayMs = wanted.manual ? null : retryDelayMs(attempt, this.random());
    const nextAttemptAt = delayMs === null ? null : new Date(after.getTime() + delayMs).toISOString();
    const recorded = await store.recordAttempt(delivery, attempt, claimToken, { entry, status: nextAttemptAt === null ? 'failed' : 'pending', nextAttemptAt });
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
      [
        {
          userId: endpoint.userId,
          endpointId: endpoint.id,
          eventId: event.id,
          eventCreatedAt: delivery.eventCreatedAt,
          attempt: attempt + 1,
          notBefore: delaySeconds > MAX_QUEUE_DELAY_SECONDS ? nextAttemptAt : null,
        },
      ],
      Math.min(delaySeconds, MAX_QUEUE_DELAY_SECONDS),
    );
    return { outcome: 'retrying', statusCode: entry.statusCode };
  }
}

/**
 * The messages of one receive (an SQS batch), with the router's batch messages of one endpoint
 * merged into one, each with the ids of the messages it stands for. The router's parallel batches
 * make several messages per endpoint for one burst; delivered apart, they compete for the
 * endpoint's 10 slots (one waits, or goes back on the queue, while another holds them); merged, the
 * endpoint's events share its lanes. Retries, resends and tests stay alone (each its own attempt).
 */
export function mergeBatchMessages<Id>(received: readonly { id: Id; message: WebhookQueueMessage }[]): { ids: Id[]; message: WebhookQueueMessage }[] {
  const merged: { ids: Id[]; message: WebhookQueueMessage }[] = [];
  const byEndpoint = new Map<string, { ids: Id[]; message: WebhookBatchMessage }>();
  for (const { id, message } of received) {
    if (!isBatchMessage(message)) {
      merged.push({ ids: [id], message });
      continue;
    }
    const key = `${message.userId}\u0000${message.endpointId}`;
    const group = byEndpoint.get(key);
    if (group) {
      group.ids.push(id);
      group.message = { ...group.message, events: [...group.message.events, ...message.events] };
    } else {
      const fresh = { ids: [id], message };
      byEndpoint.set(key, fresh);
      merged.push(fresh);
    }
  }
  return merged;
}

/** Runs `work` over the items, at most `concurrency` at a time. */
async function withConcurrency<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
