/**
 * Webhook deliveries in the webhooks table (tables.ts): one per endpoint and event, newest first
 * under the endpoint's key, with its attempt log. Every write that must not happen twice is
 * conditional: a delivery (put if absent, so a router replay writes nothing new), an attempt (over
 * the attempt count it read and the claim it holds), an attempt's claim (free or its lease over).
 *
 * The outbox of deliveries: every write that leaves a delivery pending puts it in the byPending
 * index at its next attempt's time (pendingPk/pendingSk), and every write that settles it
 * (succeeded, failed for good, cancelled) removes it, in the same UpdateItem, so no crash can
 * separate the two. The sweeper reads it (listPending) and stamps what it re-sends (stampPending).
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus, PendingDeliveries, PendingDeliveryEntry, WebhookDeliveryStore } from '../use-cases/ports/webhooks.js';
import { isConditionFailure, writtenIfConditionHolds } from './directory-table.js';
import { EVENT_ITEM } from './dynamodb-event-store.js';
import { nullableString, readItem } from './item-schema.js';
import { PENDING_DELIVERY_SHARDS } from './tables.js';
import { WebhooksTable, webhookKeys, webhookRecordExpiresAt, type WebhooksTableOptions } from './webhooks-table.js';

/** The attempt log on a delivery keeps this many entries (the settings page shows the last few). */
const ATTEMPT_LOG_ENTRIES = 12;

const ATTEMPT = v.object({
  at: v.string(),
  statusCode: v.nullish(v.number(), null),
  latencyMs: v.number(),
  error: nullableString,
});

const DELIVERY_ITEM = v.object({
  endpointId: v.string(),
  userId: v.string(),
  eventId: v.string(),
  eventType: EVENT_ITEM.entries.type,
  eventCreatedAt: v.string(),
  status: v.picklist(['pending', 'succeeded', 'failed', 'cancelled']),
  attempts: v.number(),
  attemptLog: v.optional(v.array(ATTEMPT), () => []),
  nextAttemptAt: nullableString,
  createdAt: v.string(),
});

type DeliveryKey = Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'>;

const PENDING_INDEX = 'byPending';

/** The outbox shard of a delivery: spread by a hash, so no single index partition gets hot. */
export function pendingShard(endpointId: string, eventId: string): number {
  return createHash('sha256').update(`${endpointId}#${eventId}`).digest().readUInt32BE(0) % PENDING_DELIVERY_SHARDS;
}

/** A delivery's place in the byPending index: at `at` (its next attempt's time, or a sweep's resend time). */
function pendingKeys(delivery: DeliveryKey, at: string): { pendingPk: string; pendingSk: string } {
  return { pendingPk: `pending#${pendingShard(delivery.endpointId, delivery.eventId)}`, pendingSk: `${at}#${delivery.endpointId}#${delivery.eventId}` };
}

/** The delivery an index entry names, from the table's keys it projects (ENDPOINT#<id> / DELIVERY#<createdAt>#<eventId>). */
function entryOf(item: Record<string, unknown>): PendingDeliveryEntry | null {
  const pk = String(item.pk);
  const sk = String(item.sk);
  const match = /^DELIVERY#(.+)#([^#]+)$/.exec(sk);
  if (!pk.startsWith('ENDPOINT#') || !match || typeof item.pendingSk !== 'string') return null;
  return { endpointId: pk.slice('ENDPOINT#'.length), eventCreatedAt: match[1] as string, eventId: match[2] as string, pendingSk: item.pendingSk };
}

export function toDelivery(item: Record<string, unknown>): DeliveryRecord {
  return readItem(DELIVERY_ITEM, item, `Webhook delivery ${String(item.sk)}`) as DeliveryRecord;
}

export class DynamoDbWebhookDeliveries implements WebhookDeliveryStore, PendingDeliveries {
  private readonly table: WebhooksTable;

  constructor(options: WebhooksTableOptions | WebhooksTable = {}) {
    this.table = options instanceof WebhooksTable ? options : new WebhooksTable(options);
  }

  async putDelivery(delivery: DeliveryRecord, remember: IdempotencyCompletion | null = null): Promise<boolean> {
    if (remember) return (await this.table.transact([{ Put: this.deliveryPut(delivery) }], remember)) < 0;
    return writtenIfConditionHolds(this.table.client.send(new PutCommand(this.deliveryPut(delivery))));
  }

  /** A delivery's PutItem, written only if absent. */
  deliveryPut(delivery: DeliveryRecord): { TableName: string; Item: Record<string, unknown>; ConditionExpression: string } {
    return {
      TableName: this.table.name,
      Item: {
        ...webhookKeys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
        ...delivery,
        ...(delivery.status === 'pending' ? pendingKeys(delivery, delivery.nextAttemptAt ?? delivery.createdAt) : {}),
        expiresAt: webhookRecordExpiresAt(new Date(delivery.createdAt)),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
  }

  async getDelivery(endpointId: string, eventCreatedAt: string, eventId: string): Promise<DeliveryRecord | null> {
    const out = await this.table.client.send(
      new GetCommand({ TableName: this.table.name, Key: webhookKeys.delivery(endpointId, eventCreatedAt, eventId), ConsistentRead: true }),
    );
    return out.Item ? toDelivery(out.Item) : null;
  }

  async recordAttempt(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId'> & { attemptLog?: readonly DeliveryAttempt[] },
    attempt: number,
    claimToken: string,
    result: { entry: DeliveryAttempt; status: DeliveryStatus; nextAttemptAt: string | null },
  ): Promise<boolean> {
    // The log as the caller read it, when it did: the write below holds only over the attempts it
    // read, and only an attempt's record changes the log, so it is the log there now.
    let previousLog = delivery.attemptLog;
    if (previousLog === undefined) {
      const current = await this.getDelivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId);
      if (!current) return false;
      previousLog = current.attemptLog;
    }
    const log = [...previousLog, result.entry].slice(-ATTEMPT_LOG_ENTRIES);
    const pending = result.status === 'pending' ? pendingKeys(delivery, result.nextAttemptAt ?? result.entry.at) : null;
    return this.table.conditionalUpdate({
      TableName: this.table.name,
      Key: webhookKeys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
      // The same write moves the delivery in the outbox (a next attempt) or takes it out
      // (settled), and gives the attempt's claim back.
      UpdateExpression:
        pending === null
          ? 'SET attempts = :attempt, attemptLog = :log, #status = :status, nextAttemptAt = :next REMOVE pendingPk, pendingSk, claimToken, claimUntil'
          : 'SET attempts = :attempt, attemptLog = :log, #status = :status, nextAttemptAt = :next, pendingPk = :pendingPk, pendingSk = :pendingSk REMOVE claimToken, claimUntil',
      // Over the attempts read and the claim held: a worker whose lease ran out and was taken over
      // (the other worker made the same attempt) records nothing.
      ConditionExpression: 'attempts = :previous AND claimToken = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':attempt': attempt,
        ':previous': attempt - 1,
        ':token': claimToken,
        ':log': log,
        ':status': result.status,
        ':next': result.nextAttemptAt,
        ...(pending === null ? {} : { ':pendingPk': pending.pendingPk, ':pendingSk': pending.pendingSk }),
      },
    });
  }

  async setDeliveryStatus(
    delivery: Pick<DeliveryRecord, 'endpointId' | 'eventCreatedAt' | 'eventId' | 'status' | 'attempts'>,
    status: DeliveryStatus,
    nextAttemptAt: string | null,
  ): Promise<boolean> {
    const pending = status === 'pending' ? pendingKeys(delivery, nextAttemptAt ?? new Date().toISOString()) : null;
    return this.table.conditionalUpdate({
      TableName: this.table.name,
      Key: webhookKeys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
      UpdateExpression:
        pending === null
          ? // Settled or cancelled: out of the outbox, and any claim on it dropped (it is no longer an attempt to send).
            'SET #status = :status, nextAttemptAt = :next REMOVE pendingPk, pendingSk, claimToken, claimUntil'
          : 'SET #status = :status, nextAttemptAt = :next, pendingPk = :pendingPk, pendingSk = :pendingSk',
      // Over the delivery as read: a duplicate message that read it pending must not cancel an
      // attempt recorded since (a success, or the retry it queued).
      ConditionExpression: '#status = :readStatus AND attempts = :readAttempts',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': status,
        ':readStatus': delivery.status,
        ':readAttempts': delivery.attempts,
        ':next': nextAttemptAt,
        ...(pending === null ? {} : { ':pendingPk': pending.pendingPk, ':pendingSk': pending.pendingSk }),
      },
    });
  }

  async claimAttempt(delivery: DeliveryKey, attempt: number, claim: { token: string; now: Date; until: Date }): Promise<boolean> {
    return this.table.conditionalUpdate({
      TableName: this.table.name,
      Key: webhookKeys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
      UpdateExpression: 'SET claimToken = :token, claimUntil = :until',
      // Not yet made, still pending, and nobody holds it (or its holder's lease ran out).
      ConditionExpression: 'attempts = :previous AND #status = :pending AND (attribute_not_exists(claimUntil) OR claimUntil < :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':token': claim.token,
        ':until': claim.until.getTime(),
        ':previous': attempt - 1,
        ':pending': 'pending',
        ':now': claim.now.getTime(),
      },
    });
  }

  async releaseAttempt(delivery: DeliveryKey, token: string): Promise<void> {
    await this.table.conditionalUpdate({
      TableName: this.table.name,
      Key: webhookKeys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
      UpdateExpression: 'REMOVE claimToken, claimUntil',
      ConditionExpression: 'claimToken = :token',
      ExpressionAttributeValues: { ':token': token },
    });
  }

  async listPending(shard: number, options: { to: Date; limit: number }): Promise<PendingDeliveryEntry[]> {
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: PENDING_INDEX,
        // Times are ISO strings, so "#" (after every character of a time) ends the range after `to`.
        KeyConditionExpression: 'pendingPk = :pk AND pendingSk < :to',
        ExpressionAttributeValues: { ':pk': `pending#${shard}`, ':to': `${options.to.toISOString()}$` },
        Limit: options.limit,
      }),
    );
    return (out.Items ?? []).flatMap((item) => entryOf(item) ?? []);
  }

  async stampPending(entry: PendingDeliveryEntry, stamp: { now: Date; resendAt: Date }): Promise<DeliveryRecord | null> {
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: webhookKeys.delivery(entry.endpointId, entry.eventCreatedAt, entry.eventId),
          UpdateExpression: 'SET pendingSk = :next, sweptAt = :now',
          // Where it was listed (another sweeper that stamped it first moved it), still pending, and
          // no worker on its attempt (that worker records it or its lease runs out).
          ConditionExpression: 'pendingSk = :seen AND #status = :pending AND (attribute_not_exists(claimUntil) OR claimUntil < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':next': pendingKeys(entry, stamp.resendAt.toISOString()).pendingSk,
            ':now': stamp.now.toISOString(),
            ':seen': entry.pendingSk,
            ':pending': 'pending',
            ':nowMs': stamp.now.getTime(),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? toDelivery(out.Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async listDeliveries(endpointId: string, limit: number): Promise<DeliveryRecord[]> {
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `ENDPOINT#${endpointId}`, ':prefix': 'DELIVERY#' },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(toDelivery);
  }
}
