/**
 * The webhooks table (layout in tables.ts): endpoints under the owner's key, events, deliveries
 * per endpoint newest first, and the endpoint's in-flight slots. Every write that must not happen
 * twice is conditional: the endpoint cap (a counter in the create transaction), an event and a
 * delivery (put if absent, so a router replay writes nothing new), an attempt (over the attempt
 * count it read), a slot (free or its lease over), an attempt's claim (free or its lease over).
 *
 * The outbox of deliveries: every write that leaves a delivery pending puts it in the byPending
 * index at its next attempt's time (pendingPk/pendingSk), and every write that settles it
 * (succeeded, failed for good, cancelled) removes it, in the same UpdateItem, so no crash can
 * separate the two. The sweeper reads it (listPending) and stamps what it re-sends (stampPending).
 */
import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import type { PageKey } from '../domain/cursor.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import {
  ENDPOINT_IN_FLIGHT_LIMIT,
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RECORD_TTL_SECONDS,
  type WebhookEndpoint,
} from '../domain/webhooks.js';
import type {
  DeliveryAttempt,
  DeliveryRecord,
  DeliveryStatus,
  EndpointChanges,
  PendingDeliveries,
  PendingDeliveryEntry,
  WebhookEventRecord,
  WebhookStore,
} from '../use-cases/ports/webhooks.js';
import type { ConditionalUpdate } from './coalesced-updates.js';
import { isConditionFailure } from './directory-table.js';
import { documentClient } from './dynamo-client.js';
import { IdempotencyLockLostError, idempotencyCompletionUpdate } from './idempotency-record-writes.js';
import { nullableString, readItem } from './item-schema.js';
import { IDEMPOTENCY_TABLE, PENDING_DELIVERY_SHARDS, WEBHOOKS_TABLE } from './tables.js';

/** The attempt log on a delivery keeps this many entries (the settings page shows the last few). */
const ATTEMPT_LOG_ENTRIES = 12;

export const keys = {
  endpoint: (userId: string, endpointId: string) => ({ pk: `USER#${userId}`, sk: `ENDPOINT#${endpointId}` }),
  endpointCount: (userId: string) => ({ pk: `USER#${userId}`, sk: 'ENDPOINTS' }),
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  delivery: (endpointId: string, eventCreatedAt: string, eventId: string) => ({
    pk: `ENDPOINT#${endpointId}`,
    sk: `DELIVERY#${eventCreatedAt}#${eventId}`,
  }),
  slot: (endpointId: string, slot: number) => ({ pk: `ENDPOINT#${endpointId}`, sk: `SLOT#${slot}` }),
};

const ENDPOINT_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  url: v.string(),
  enabledEvents: v.array(v.string()),
  description: nullableString,
  status: v.picklist(['enabled', 'disabled']),
  disabledReason: nullableString,
  createdAt: v.string(),
  updatedAt: v.string(),
  secrets: v.array(v.object({ encrypted: v.string(), createdAt: v.string(), expiresAt: nullableString })),
  failingSince: nullableString,
});

export const EVENT_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  // Every type the router emits, and the test action's.
  type: v.picklist([...WEBHOOK_EVENT_TYPES, 'webhook.test'] as const),
  createdAt: v.string(),
  body: v.string(),
});

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

/** An event's place in its user's list (the byUserEvents index): by time, then id. */
export function eventListKeys(event: Pick<WebhookEventRecord, 'userId' | 'createdAt' | 'id'>): { eventsPk: string; eventsSk: string } {
  return { eventsPk: `USER#${event.userId}`, eventsSk: `${event.createdAt}#${event.id}` };
}

function ttl(now: Date): number {
  return Math.floor(now.getTime() / 1000) + WEBHOOK_RECORD_TTL_SECONDS;
}

/**
 * An endpoint's item as stored: failingSince only while a run of failures is under way. Its
 * absence is what means "no run" to markFailing's condition, so it is never written as NULL.
 */
function endpointItem(endpoint: WebhookEndpoint): Record<string, unknown> {
  const { failingSince, ...rest } = endpoint;
  return failingSince === null ? rest : { ...rest, failingSince };
}

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return readItem(ENDPOINT_ITEM, item, `Webhook endpoint ${String(item.sk)}`);
}

export function toDelivery(item: Record<string, unknown>): DeliveryRecord {
  return readItem(DELIVERY_ITEM, item, `Webhook delivery ${String(item.sk)}`) as DeliveryRecord;
}

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];


export class DynamoDbWebhookStore implements WebhookStore, PendingDeliveries {
  protected readonly tableName: string;
  protected readonly client: DynamoDBDocumentClient;
  private idempotency: string | undefined;

  /** The idempotency table is read at its first use: only the API's endpoint writes complete records there. */
  constructor(options: { tableName?: string; idempotencyTable?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(WEBHOOKS_TABLE.envVar);
    this.idempotency = options.idempotencyTable;
    this.client = options.client ?? documentClient;
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  /**
   * `items` in one transaction, with the request's idempotency record completed as its last item
   * when it holds one. Answers the index of the item whose own condition failed (nothing written),
   * or -1 when all were written. The completion's condition failing means the lock ran out and
   * another request took the key: nothing written, IdempotencyLockLostError.
   */
  private async transact(items: TransactItem[], remember: IdempotencyCompletion | null): Promise<number> {
    const completion = remember ? [{ Update: idempotencyCompletionUpdate(this.idempotencyTable, remember.lock, remember.response) }] : [];
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: [...items, ...completion] }));
      return -1;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const failed = (error.CancellationReasons ?? []).findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failed < 0) throw error;
      if (failed === items.length) throw new IdempotencyLockLostError();
      return failed;
    }
  }

  /**
   * One conditional write of a delivery (an attempt's claim, its release, its record, a status):
   * true when written, false when its condition failed. The delivery worker's store writes these
   * together (lib/store/dynamodb-webhook-delivery-store.ts).
   */
  protected async conditionalUpdate(update: ConditionalUpdate): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(update));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async createEndpoint(endpoint: WebhookEndpoint, remember: IdempotencyCompletion | null = null): Promise<'created' | 'limit_reached'> {
    const failed = await this.transact(
      [
        {
          // The cap is a condition on the counter in the same transaction: two creates at once
          // cannot both take the 16th place (a read-then-write could).
          Update: {
            TableName: this.tableName,
            Key: keys.endpointCount(endpoint.userId),
            UpdateExpression: 'ADD #count :one',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOK_ENDPOINTS },
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: { ...keys.endpoint(endpoint.userId, endpoint.id), ...endpointItem(endpoint) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      remember,
    );
    if (failed === 0) return 'limit_reached';
    if (failed === 1) throw new Error(`Webhook endpoint ${endpoint.id} already exists`);
    return 'created';
  }

  async getEndpoint(userId: string, endpointId: string): Promise<WebhookEndpoint | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.endpoint(userId, endpointId), ConsistentRead: true }));
    return out.Item ? toEndpoint(out.Item) : null;
  }

  async listEndpoints(userId: string, page: { limit: number; startKey: PageKey | null }): Promise<{ endpoints: WebhookEndpoint[]; nextKey: PageKey | null }> {
    if (page.startKey !== null && (page.startKey.pk !== `USER#${userId}` || !String(page.startKey.sk ?? '').startsWith('ENDPOINT#'))) {
      throw Object.assign(new Error('page key not of this list'), { code: 'invalid_page_key' });
    }
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'ENDPOINT#' },
        Limit: page.limit,
        ...(page.startKey === null ? {} : { ExclusiveStartKey: page.startKey }),
      }),
    );
    const last = out.LastEvaluatedKey;
    return {
      endpoints: (out.Items ?? []).map(toEndpoint),
      nextKey: last ? { pk: String(last.pk), sk: String(last.sk) } : null,
    };
  }

  async allEndpoints(userId: string): Promise<WebhookEndpoint[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'ENDPOINT#' },
      }),
    );
    return (out.Items ?? []).map(toEndpoint);
  }

  async updateEndpoint(userId: string, endpointId: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    const entries = Object.entries({ ...changes, updatedAt: now.toISOString() }).filter(([, value]) => value !== undefined);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    entries.forEach(([name, value], index) => {
      names[`#f${index}`] = name;
      // A run of failures that ends is removed, never kept as NULL (see endpointItem).
      if (name === 'failingSince' && value === null) {
        removes.push(`#f${index}`);
        return;
      }
      values[`:v${index}`] = value;
      sets.push(`#f${index} = :v${index}`);
    });
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.endpoint(userId, endpointId),
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? toEndpoint(out.Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async replaceSecrets(after: WebhookEndpoint, readUpdatedAt: string, remember: IdempotencyCompletion | null): Promise<'applied' | 'changed'> {
    const update = {
      TableName: this.tableName,
      Key: keys.endpoint(after.userId, after.id),
      UpdateExpression: 'SET secrets = :secrets, updatedAt = :updatedAt',
      ConditionExpression: 'updatedAt = :readUpdatedAt',
      ExpressionAttributeValues: { ':secrets': after.secrets, ':updatedAt': after.updatedAt, ':readUpdatedAt': readUpdatedAt },
    };
    if (remember) return (await this.transact([{ Update: update }], remember)) < 0 ? 'applied' : 'changed';
    return (await this.conditionalUpdate(update)) ? 'applied' : 'changed';
  }

  async disableEndpoint(userId: string, endpointId: string, reason: string, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.endpoint(userId, endpointId),
          UpdateExpression: 'SET #status = :disabled, disabledReason = :reason, updatedAt = :now',
          ConditionExpression: '#status = :enabled',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':disabled': 'disabled', ':enabled': 'enabled', ':reason': reason, ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async markFailing(userId: string, endpointId: string, now: Date): Promise<string | null> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.endpoint(userId, endpointId),
          UpdateExpression: 'SET failingSince = :now',
          // Starts a run only where none is under way. An endpoint written before NULL was kept
          // out of this attribute may hold a NULL, which means no run too (if_not_exists would
          // keep it, and the endpoint would never be disabled).
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(failingSince) OR attribute_type(failingSince, :null))',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':null': 'NULL' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return now.toISOString();
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A run under way (its start, the item as it was), or no endpoint (no item).
      const since = (error as { Item?: Record<string, { S?: string }> }).Item?.failingSince?.S;
      return since ?? null;
    }
  }

  async clearFailing(userId: string, endpointId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.endpoint(userId, endpointId),
          // Written only when set: a healthy endpoint's successes cost no write here.
          UpdateExpression: 'REMOVE failingSince',
          ConditionExpression: 'attribute_exists(failingSince)',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async deleteEndpoint(userId: string, endpointId: string): Promise<boolean> {
    const failed = await this.transact(
      [
        { Delete: { TableName: this.tableName, Key: keys.endpoint(userId, endpointId), ConditionExpression: 'attribute_exists(pk)' } },
        {
          Update: {
            TableName: this.tableName,
            Key: keys.endpointCount(userId),
            UpdateExpression: 'ADD #count :minusOne',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ],
      null,
    );
    return failed < 0;
  }

  async putEvent(event: WebhookEventRecord): Promise<WebhookEventRecord> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.eventItem(event),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return event;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The first write wins: a replay uses the event as it was first written.
      const existing = await this.getEvent(event.id);
      if (!existing) throw error;
      return existing;
    }
  }

  async getEvent(eventId: string): Promise<WebhookEventRecord | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.event(eventId), ConsistentRead: true }));
    return out.Item ? readItem(EVENT_ITEM, out.Item, `Webhook event ${eventId}`) : null;
  }

  async putDelivery(delivery: DeliveryRecord, remember: IdempotencyCompletion | null = null): Promise<boolean> {
    if (remember) return (await this.transact([{ Put: this.deliveryPut(delivery) }], remember)) < 0;
    try {
      await this.client.send(new PutCommand(this.deliveryPut(delivery)));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** An event's item as stored: under its id, and in its user's list (byUserEvents) newest first. */
  protected eventItem(event: WebhookEventRecord): Record<string, unknown> {
    return { ...keys.event(event.id), ...event, ...eventListKeys(event), expiresAt: ttl(new Date(event.createdAt)) };
  }

  /** A delivery's PutItem, written only if absent. */
  protected deliveryPut(delivery: DeliveryRecord): { TableName: string; Item: Record<string, unknown>; ConditionExpression: string } {
    return {
      TableName: this.tableName,
      Item: {
        ...keys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
        ...delivery,
        ...(delivery.status === 'pending' ? pendingKeys(delivery, delivery.nextAttemptAt ?? delivery.createdAt) : {}),
        expiresAt: ttl(new Date(delivery.createdAt)),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
  }

  async getDelivery(endpointId: string, eventCreatedAt: string, eventId: string): Promise<DeliveryRecord | null> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.delivery(endpointId, eventCreatedAt, eventId), ConsistentRead: true }),
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
    return this.conditionalUpdate({
      TableName: this.tableName,
      Key: keys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
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
    return this.conditionalUpdate({
      TableName: this.tableName,
      Key: keys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
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
    return this.conditionalUpdate({
      TableName: this.tableName,
      Key: keys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
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
    await this.conditionalUpdate({
      TableName: this.tableName,
      Key: keys.delivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId),
      UpdateExpression: 'REMOVE claimToken, claimUntil',
      ConditionExpression: 'claimToken = :token',
      ExpressionAttributeValues: { ':token': token },
    });
  }

  async listPending(shard: number, options: { to: Date; limit: number }): Promise<PendingDeliveryEntry[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
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
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.delivery(entry.endpointId, entry.eventCreatedAt, entry.eventId),
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
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `ENDPOINT#${endpointId}`, ':prefix': 'DELIVERY#' },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(toDelivery);
  }

  async acquireSlots(endpointId: string, token: string, wanted: number, now: Date, until: Date): Promise<number[]> {
    // The slots are read first (one Query: at most ENDPOINT_IN_FLIGHT_LIMIT small items), and only
    // the free ones tried, all at once: a free endpoint's slots cost two round trips, not ten in a
    // row, and a busy one's cost one request per try, not a failed write per slot (a message
    // waiting for a busy endpoint tries every SLOT_RETRY_MS, on a database a burst keeps busy).
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `ENDPOINT#${endpointId}`, ':prefix': 'SLOT#' },
        ConsistentRead: true,
      }),
    );
    const held = new Set(
      (out.Items ?? []).flatMap((item) => (typeof item.leaseUntil === 'number' && item.leaseUntil >= now.getTime() ? [String(item.sk)] : [])),
    );
    // In a random order, so messages racing for a busy endpoint do not all try the same slot first.
    const start = Math.floor(Math.random() * ENDPOINT_IN_FLIGHT_LIMIT);
    const free = Array.from({ length: ENDPOINT_IN_FLIGHT_LIMIT }, (_, offset) => (start + offset) % ENDPOINT_IN_FLIGHT_LIMIT).filter(
      (slot) => !held.has(keys.slot(endpointId, slot).sk),
    );
    const taken: number[] = [];
    // Another message may take a free one first (the write's condition decides): the next free ones are tried then.
    for (let tried = 0; tried < free.length && taken.length < wanted; ) {
      const round = free.slice(tried, tried + wanted - taken.length);
      tried += round.length;
      const won = await Promise.all(round.map((slot) => this.takeSlot(endpointId, slot, token, now, until)));
      taken.push(...round.filter((_, index) => won[index]));
    }
    return taken;
  }

  private async takeSlot(endpointId: string, slot: number, token: string, now: Date, until: Date): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.slot(endpointId, slot), token, leaseUntil: until.getTime(), expiresAt: Math.ceil(until.getTime() / 1000) + 60 },
          // Free, or held by a worker whose lease ran out (it crashed or hung): taken over.
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':now': now.getTime() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async releaseSlot(endpointId: string, slot: number, token: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.slot(endpointId, slot),
          // Only our own lease: a slot taken over after our lease ran out is someone else's now.
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': token },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
