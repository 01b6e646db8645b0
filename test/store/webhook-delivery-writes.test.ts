/**
 * A delivery's writes hold only over what their writer read or holds: a cancel over the status and
 * attempts it read (a duplicate message that read the delivery pending must not overwrite a
 * success recorded since), an attempt's record over its claim (a worker whose lease ran out and was
 * taken over must not record over the worker that took it). Against DynamoDB Local.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { newEndpointId } from '../../lib/domain/webhooks.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import type { DeliveryAttempt, DeliveryRecord } from '../../lib/use-cases/ports/webhooks.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const store = new DynamoDbWebhookStore({ tableName: sharedTables.webhooks ?? '', client });

afterAll(() => raw.destroy());

async function pendingDelivery(): Promise<DeliveryRecord> {
  const now = new Date().toISOString();
  const delivery: DeliveryRecord = {
    endpointId: newEndpointId(),
    userId: `user_${randomBytes(4).toString('hex')}`,
    eventId: `evt_${randomBytes(8).toString('hex')}`,
    eventType: 'post.published',
    eventCreatedAt: now,
    status: 'pending',
    attempts: 0,
    attemptLog: [],
    nextAttemptAt: now,
    createdAt: now,
  };
  expect(await store.putDelivery(delivery)).toBe(true);
  return delivery;
}

const answered = (statusCode: number): DeliveryAttempt => ({ at: new Date().toISOString(), statusCode, latencyMs: 5, error: statusCode < 300 ? null : `HTTP ${statusCode}` });

async function stored(delivery: DeliveryRecord): Promise<DeliveryRecord> {
  return (await store.getDelivery(delivery.endpointId, delivery.eventCreatedAt, delivery.eventId))!;
}

describe("a delivery's cancel", () => {
  it('does not overwrite a success recorded after the canceller read the delivery pending', async () => {
    const delivery = await pendingDelivery();
    // A duplicate message reads it pending; meanwhile the first message sends it and records the success.
    const readByDuplicate = await stored(delivery);
    const now = new Date();
    expect(await store.claimAttempt(delivery, 1, { token: 'first', now, until: new Date(now.getTime() + 15_000) })).toBe(true);
    expect(await store.recordAttempt(delivery, 1, 'first', { entry: answered(200), status: 'succeeded', nextAttemptAt: null })).toBe(true);
    expect(await store.setDeliveryStatus(readByDuplicate, 'cancelled', null)).toBe(false);
    expect(await stored(delivery)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('cancels a delivery still as read', async () => {
    const delivery = await pendingDelivery();
    expect(await store.setDeliveryStatus(await stored(delivery), 'cancelled', null)).toBe(true);
    expect((await stored(delivery)).status).toBe('cancelled');
  });
});

describe("an attempt's record", () => {
  it('is written only by the holder of the claim: a worker whose lease was taken over records nothing', async () => {
    const delivery = await pendingDelivery();
    const t = Date.now();
    expect(await store.claimAttempt(delivery, 1, { token: 'slow', now: new Date(t), until: new Date(t + 1_000) })).toBe(true);
    // The slow worker's lease runs out; another takes the same attempt over and sends it.
    expect(await store.claimAttempt(delivery, 1, { token: 'other', now: new Date(t + 2_000), until: new Date(t + 17_000) })).toBe(true);
    expect(await store.recordAttempt(delivery, 1, 'slow', { entry: answered(500), status: 'pending', nextAttemptAt: new Date(t + 60_000).toISOString() })).toBe(false);
    expect(await store.recordAttempt(delivery, 1, 'other', { entry: answered(200), status: 'succeeded', nextAttemptAt: null })).toBe(true);
    expect(await stored(delivery)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect((await stored(delivery)).attemptLog.map((entry) => entry.statusCode)).toEqual([200]);
  });
});
