/**
 * An account's queue in the directory table (tables.ts): its settings under `QUEUE#<acctId>/QUEUE`,
 * and one item per taken slot under `QUEUE#<acctId>/SLOT#<scheduledFor>`. A slot item is written by
 * the post's own create transaction with `attribute_not_exists(pk)` (post-create-writes.ts), so of
 * two requests that chose one slot only one commits; the loser chooses again. It is deleted in the
 * transaction that cancels the post (dynamodb-post-store.ts). The queue's items are under their own
 * prefix, so a function that takes slots may write nothing else of the directory (IAM LeadingKeys).
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { QUEUE_DAYS, type Queue } from '../domain/queue.js';
import type { QueueStore } from '../use-cases/ports/queues.js';
import { batchGetAll } from './batch-get.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions } from './directory-table.js';

const QUEUE_ITEM = v.object({
  timeZone: v.string(),
  slots: v.array(v.object({ day: v.picklist(QUEUE_DAYS), time: v.string() })),
});

const SLOT_PREFIX = 'SLOT#';

/**
 * How long a slot item outlives its instant before the table's TTL removes it: the queue reads only
 * slots from now on, so a passed slot is never read again (its post published, failed or moved);
 * the day keeps it clear of clock skew, and a cancel or a retry deletes with a condition that also
 * holds for an item already gone.
 */
export const QUEUE_SLOT_TTL_SECONDS = 24 * 60 * 60;

/** A slot item's transaction write: the post takes the slot only if nobody holds it. */
export function queueSlotPut(tableName: string, slot: { accountId: string; scheduledFor: string; postId: string }) {
  return {
    TableName: tableName,
    Item: {
      ...directoryKeys.queueSlot(slot.accountId, slot.scheduledFor),
      postId: slot.postId,
      expiresAt: Math.floor(Date.parse(slot.scheduledFor) / 1000) + QUEUE_SLOT_TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/** A slot item's delete, only while it is the post's own (a slot given back is never taken from its next holder). */
export function queueSlotDelete(tableName: string, post: { accountId: string; scheduledFor: string; id: string }) {
  return {
    TableName: tableName,
    Key: directoryKeys.queueSlot(post.accountId, post.scheduledFor),
    ConditionExpression: 'attribute_not_exists(pk) OR postId = :postId',
    ExpressionAttributeValues: { ':postId': post.id },
  };
}

export class DynamoDbQueueStore implements QueueStore {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getQueue(accountId: string): Promise<Queue | null> {
    const item = await this.table.getItem(directoryKeys.queue(accountId), true);
    if (!item) return null;
    const { timeZone, slots } = readDirectoryItem(QUEUE_ITEM, item);
    return { accountId, timeZone, slots };
  }

  async getQueues(accountIds: readonly string[]): Promise<Map<string, Queue>> {
    const queues = new Map<string, Queue>();
    if (accountIds.length === 0) return queues;
    const items = await batchGetAll(this.table.client, this.table.name, [...new Set(accountIds)].map((id) => directoryKeys.queue(id)));
    for (const item of items) {
      const accountId = String(item.pk).slice(directoryKeys.queue('').pk.length);
      const { timeZone, slots } = readDirectoryItem(QUEUE_ITEM, item);
      queues.set(accountId, { accountId, timeZone, slots });
    }
    return queues;
  }

  async putQueue(queue: Queue, now: Date): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.name,
        Item: {
          ...directoryKeys.queue(queue.accountId),
          timeZone: queue.timeZone,
          slots: queue.slots.map((slot) => ({ day: slot.day, time: slot.time })),
          updatedAt: now.toISOString(),
        },
      }),
    );
  }

  async takenSlots(accountId: string, fromMs: number, untilMs: number): Promise<Set<number>> {
    const taken = new Set<number>();
    const { pk } = directoryKeys.queue(accountId);
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :until',
          ExpressionAttributeValues: {
            ':pk': pk,
            ':from': `${SLOT_PREFIX}${new Date(fromMs).toISOString()}`,
            ':until': `${SLOT_PREFIX}${new Date(untilMs).toISOString()}`,
          },
          ProjectionExpression: 'sk',
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) {
        const at = Date.parse(String(item.sk).slice(SLOT_PREFIX.length));
        if (Number.isFinite(at)) taken.add(at);
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return taken;
  }
}
