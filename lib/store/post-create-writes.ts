/**
 * The transactions of the create path of the posts table (DynamoDbPostStore delegates to them):
 * create writes every post of a request, the plan-allowance counter, the queue slots of queued posts
 * and the idempotency record's completion in ONE TransactWriteItems (at most 25 posts + 25 slots + 2
 * items, under the 100-item limit), so a
 * create costs the same number of requests for 1 target as for 25, and either all of it exists or
 * none of it does. The allowance is checked by the counter update's condition
 * (`ADD used :k IF attribute_not_exists(used) OR used <= limit - k`), so two concurrent creates can
 * never spend more than the limit together. The counter is only read when that condition fails:
 * then the first k posts that still fit (request order) are written and the rest are refused.
 */
import { backoff } from './transaction-backoff.js';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import { allowanceCounterExpiresAt, unitsThatFit } from '../domain/allowance.js';
import { DependencyError } from '../domain/errors.js';
import type { IdempotencyLock } from '../domain/idempotency-record.js';
import type { Post, PostError } from '../domain/model.js';
import { QueueSlotTakenError } from '../domain/queue.js';
import type { NewPostsResult, NewPostsWrite, ScheduleFailureWrite } from '../use-cases/ports/post-store.js';
import { ALLOWANCE_UPDATE, allowanceCounterKey } from './allowance-counter.js';
import { documentClient } from './dynamo-client.js';
import { readItem } from './item-schema.js';
import { IdempotencyLockLostError, idempotencyCompletionUpdate, idempotencyRecordDelete, idempotencyResponseUpdate } from './idempotency-record-writes.js';
import { errorToItem, postToItem, statusPartitionKey } from './post-item.js';
import { queueSlotPut } from './dynamodb-queue-store.js';
import { COUNTERS_TABLE, DIRECTORY_TABLE, IDEMPOTENCY_TABLE, POSTS_TABLE } from './tables.js';
import { cancellationCodes, type TransactItem } from './transactions.js';

/** Each failed attempt means another request spent units or held the counter: bounded by the concurrency. */
export const MAX_TRANSACTION_ATTEMPTS = 12;

/** An allowance counter: `used` units of the cycle (only ever changed by ADD, so absent means none). */
const ALLOWANCE_COUNTER = v.object({ used: v.optional(v.number(), 0) });

export { ALLOWANCE_UPDATE, allowanceCounterKey } from './allowance-counter.js';





export interface DynamoDbPostStoreOptions {
  postsTable?: string;
  countersTable?: string;
  idempotencyTable?: string;
  directoryTable?: string;
  client?: DynamoDBDocumentClient;
}

/** The create path's transactions (POST /posts): new posts with their allowance units and idempotency record, and the undo when they cannot be queued. */
export class PostCreateWrites {
  readonly postsTable: string;
  private counters: string | undefined;
  private idempotency: string | undefined;
  private directory: string | undefined;
  readonly client: DynamoDBDocumentClient;

  /**
   * The posts table is read at once: every operation uses it. The counters and idempotency tables
   * are read by the first operation that writes them (create, refunds), so a function that only
   * reads or removes posts runs without their names, and is granted nothing on them
   * (infra/stacks/function-access.ts); a function that does use one and lacks its name still fails
   * loudly (MissingConfigError) at that first use.
   */
  constructor(options: DynamoDbPostStoreOptions = {}) {
    this.postsTable = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.counters = options.countersTable;
    this.idempotency = options.idempotencyTable;
    this.directory = options.directoryTable;
    this.client = options.client ?? documentClient;
  }

  get countersTable(): string {
    this.counters ??= requireEnv(COUNTERS_TABLE.envVar);
    return this.counters;
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  /** Only a post that takes a queue slot writes the directory (its slot item). */
  get directoryTable(): string {
    this.directory ??= requireEnv(DIRECTORY_TABLE.envVar);
    return this.directory;
  }

  async createPosts(write: NewPostsWrite): Promise<NewPostsResult> {
    const chargeable = write.posts.filter((post) => post.allowanceCycle !== null);
    const cycle = chargeable[0]?.allowanceCycle ?? null;
    if (chargeable.some((post) => post.allowanceCycle !== cycle)) {
      throw new Error('All posts of one create spend the allowance of the same cycle');
    }
    // Optimistic first try: no read of the counter; the condition is the check.
    let fit = unitsThatFit(chargeable.length, 0, write.allowanceLimit);
    // Posts at an explicit time that is a slot ask for its item; one that finds it held is written
    // again without it. One item per account and instant: a transaction may not write one item twice.
    const asking = new Set<string>();
    const askedSlots = new Set<string>();
    for (const post of write.posts) {
      const slot = `${post.accountId}@${post.scheduledFor}`;
      if (!write.slotsAsked?.has(post.id) || post.queueSlot === true || askedSlots.has(slot)) continue;
      asking.add(post.id);
      askedSlots.add(slot);
    }

    for (let attempt = 1; ; attempt++) {
      const admitted = new Set(chargeable.slice(0, fit).map((post) => post.id));
      const written = write.posts
        .filter((post) => post.allowanceCycle === null || admitted.has(post.id))
        .map((post) => (asking.has(post.id) ? { ...post, queueSlot: true } : post));
      const overAllowance = chargeable.slice(fit);
      const response = write.response(new Set(written.map((post) => post.id)));
      if (written.length === 0) return { written, overAllowance };

      const items: TransactItem[] = written.map((post) => ({
        Put: { TableName: this.postsTable, Item: postToItem(post), ConditionExpression: 'attribute_not_exists(id)' },
      }));
      let counterIndex = -1;
      if (fit > 0 && cycle !== null) {
        counterIndex = items.length;
        items.push({
          Update: {
            TableName: this.countersTable,
            Key: allowanceCounterKey(write.userId, cycle),
            UpdateExpression: ALLOWANCE_UPDATE,
            ConditionExpression: 'attribute_not_exists(used) OR used <= :maxUsedBefore',
            ExpressionAttributeValues: { ':units': fit, ':maxUsedBefore': write.allowanceLimit - fit, ':expiresAt': allowanceCounterExpiresAt(cycle) },
          },
        });
      }
      // A queued post's slot, taken in the same transaction: of two requests that chose it, one
      // commits. A post at an explicit time asks for its instant's slot the same way, after them.
      const slotStart = items.length;
      const slotted = written.filter((post) => post.queueSlot === true && !asking.has(post.id));
      const asked = written.filter((post) => asking.has(post.id));
      for (const post of [...slotted, ...asked]) {
        items.push({ Put: queueSlotPut(this.directoryTable, { accountId: post.accountId, scheduledFor: post.scheduledFor, postId: post.id }) });
      }
      let idempotencyIndex = -1;
      if (write.idempotency && response) {
        idempotencyIndex = items.length;
        items.push({ Update: idempotencyCompletionUpdate(this.idempotencyTable, write.idempotency, response) });
      }

      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return { written, overAllowance };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = cancellationCodes(error);
        if (idempotencyIndex >= 0 && codes[idempotencyIndex] === 'ConditionalCheckFailed') throw new IdempotencyLockLostError();
        const lostSlots = slotted.filter((_, index) => codes[slotStart + index] === 'ConditionalCheckFailed');
        if (lostSlots.length > 0) {
          throw new QueueSlotTakenError(lostSlots.map((post) => ({ accountId: post.accountId, scheduledFor: post.scheduledFor })));
        }
        const heldByOthers = asked.filter((_, index) => codes[slotStart + slotted.length + index] === 'ConditionalCheckFailed');
        for (const post of heldByOthers) asking.delete(post.id);
        if (attempt >= MAX_TRANSACTION_ATTEMPTS) {
          throw new DependencyError('Could not write the posts: too much contention on the allowance', { cause: error });
        }
        if (counterIndex >= 0 && codes[counterIndex] === 'ConditionalCheckFailed' && cycle !== null) {
          // Someone else spent units since: read what is left (strongly consistent) and fit what still can.
          const used = await this.allowanceUsed(write.userId, cycle);
          fit = unitsThatFit(chargeable.length, used, write.allowanceLimit);
          continue;
        }
        if (codes.includes('TransactionConflict')) {
          await backoff(attempt);
          continue;
        }
        if (heldByOthers.length > 0) continue;
        throw new DependencyError('The posts transaction was cancelled', { cause: error });
      }
    }
  }

  /** Units of the allowance spent in a cycle (0 when nothing was spent yet). */
  async allowanceUsed(userId: string, cycle: string): Promise<number> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.countersTable, Key: allowanceCounterKey(userId, cycle), ConsistentRead: true }),
    );
    return out.Item ? readItem(ALLOWANCE_COUNTER, out.Item, `Allowance counter of USER#${userId} for ${cycle}`).used : 0;
  }

  async markScheduleFailed(write: ScheduleFailureWrite): Promise<Post[]> {
    let posts = [...write.posts];
    let idempotency: IdempotencyLock | null = write.idempotency;
    const updatedAt = write.now.toISOString();
    for (let attempt = 1; ; attempt++) {
      const items: TransactItem[] = posts.map((post) => ({ Update: this.scheduleFailedUpdate(post, write.error, updatedAt) }));
      const refunds = new Map<string, number>();
      for (const post of posts) {
        if (post.allowanceCycle !== null) refunds.set(post.allowanceCycle, (refunds.get(post.allowanceCycle) ?? 0) + 1);
      }
      for (const [cycle, units] of refunds) {
        items.push({
          Update: {
            TableName: this.countersTable,
            Key: allowanceCounterKey(write.userId, cycle),
            UpdateExpression: ALLOWANCE_UPDATE,
            ExpressionAttributeValues: { ':units': -units, ':expiresAt': allowanceCounterExpiresAt(cycle) },
          },
        });
      }
      const idempotencyIndex = idempotency ? items.length : -1;
      if (idempotency) {
        items.push(
          write.response
            ? { Update: idempotencyResponseUpdate(this.idempotencyTable, idempotency, write.response) }
            : { Delete: idempotencyRecordDelete(this.idempotencyTable, idempotency) },
        );
      }
      if (items.length === 0) return [];
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: items }));
        return posts.map((post) => ({
          ...post,
          status: 'failed' as const,
          error: write.error,
          allowanceCycle: null,
          updatedAt,
        }));
      } catch (error) {
        if (!(error instanceof TransactionCanceledException) || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
        const codes = cancellationCodes(error);
        // A post deleted (and refunded) in the meantime is left as it is; the others still fail.
        const before = posts.length;
        posts = posts.filter((_, index) => codes[index] !== 'ConditionalCheckFailed');
        if (idempotencyIndex >= 0 && codes[idempotencyIndex] === 'ConditionalCheckFailed') idempotency = null;
        if (posts.length === before && idempotency === write.idempotency && !codes.includes('TransactionConflict')) throw error;
        if (codes.includes('TransactionConflict')) await backoff(attempt);
      }
    }
  }

  private scheduleFailedUpdate(post: Post, error: PostError, updatedAt: string) {
    return {
      TableName: this.postsTable,
      Key: { id: post.id },
      UpdateExpression:
        'SET #status = :failed, statusPk = :statusPk, #error = :error, updatedAt = :updatedAt REMOVE duePk, dueSk, allowanceCycle',
      ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt) AND attribute_not_exists(inFlightSince)',
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':scheduled': 'scheduled',
        ':statusPk': statusPartitionKey(post.userId, 'failed'),
        ':error': errorToItem(error),
        ':updatedAt': updatedAt,
      },
    };
  }
}
