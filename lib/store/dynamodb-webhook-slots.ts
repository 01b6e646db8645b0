/**
 * An endpoint's in-flight slots in the webhooks table (tables.ts): ENDPOINT_IN_FLIGHT_LIMIT items
 * under the endpoint's key, each taken with a lease (free, or its holder's lease over) and given
 * back only by its holder, so at most that many attempts to one endpoint are under way at once.
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ENDPOINT_IN_FLIGHT_LIMIT } from '../domain/webhooks.js';
import type { WebhookSlotStore } from '../use-cases/ports/webhooks.js';
import { writtenIfConditionHolds } from './directory-table.js';
import { WebhooksTable, webhookKeys, type WebhooksTableOptions } from './webhooks-table.js';

export class DynamoDbWebhookSlots implements WebhookSlotStore {
  private readonly table: WebhooksTable;

  constructor(options: WebhooksTableOptions | WebhooksTable = {}) {
    this.table = options instanceof WebhooksTable ? options : new WebhooksTable(options);
  }

  async acquireSlots(endpointId: string, token: string, wanted: number, now: Date, until: Date): Promise<number[]> {
    // The slots are read first (one Query: at most ENDPOINT_IN_FLIGHT_LIMIT small items), and only
    // the free ones tried, all at once: a free endpoint's slots cost two round trips, not ten in a
    // row, and a busy one's cost one request per try, not a failed write per slot (a message
    // waiting for a busy endpoint tries every SLOT_RETRY_MS, on a database a burst keeps busy).
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `ENDPOINT#${endpointId}`, ':prefix': 'SLOT#' },
        ConsistentRead: true,
      }),
    );
    const heldSlotKeys = new Set(
      (out.Items ?? []).flatMap((item) => (typeof item.leaseUntil === 'number' && item.leaseUntil >= now.getTime() ? [String(item.sk)] : [])),
    );
    // In a random order, so messages racing for a busy endpoint do not all try the same slot first.
    const start = Math.floor(Math.random() * ENDPOINT_IN_FLIGHT_LIMIT);
    const free = Array.from({ length: ENDPOINT_IN_FLIGHT_LIMIT }, (_, offset) => (start + offset) % ENDPOINT_IN_FLIGHT_LIMIT).filter(
      (slot) => !heldSlotKeys.has(webhookKeys.slot(endpointId, slot).sk),
    );
    const taken: number[] = [];
    // Another message may take a free one first (the write's condition decides): the next free ones are tried then.
    for (let tried = 0; tried < free.length && taken.length < wanted; ) {
      const round = free.slice(tried, tried + wanted - taken.length);
      tried += round.length;
      const takenInRound = await Promise.all(round.map((slot) => this.takeSlot(endpointId, slot, token, now, until)));
      taken.push(...round.filter((_, index) => takenInRound[index]));
    }
    return taken;
  }

  private takeSlot(endpointId: string, slot: number, token: string, now: Date, until: Date): Promise<boolean> {
    return writtenIfConditionHolds(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...webhookKeys.slot(endpointId, slot), token, leaseUntil: until.getTime(), expiresAt: Math.ceil(until.getTime() / 1000) + 60 },
          // Free, or held by a worker whose lease ran out (it crashed or hung): taken over.
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':now': now.getTime() },
        }),
      ),
    );
  }

  async releaseSlot(endpointId: string, slot: number, token: string): Promise<void> {
    await writtenIfConditionHolds(
      this.table.client.send(
        new DeleteCommand({
          TableName: this.table.name,
          Key: webhookKeys.slot(endpointId, slot),
          // Only our own lease: a slot taken over after our lease ran out is someone else's now.
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': token },
        }),
      ),
    );
  }
}
