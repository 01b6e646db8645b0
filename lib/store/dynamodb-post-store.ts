/**
 * Posts in DynamoDB (layout: lib/store/post-item.ts). Every operation is a GetItem, a Query on
 * one of the posts indexes, or a conditional write; nothing scans and no page is filtered.
 *
 * Create writes every post of a request, the plan-allowance counter and the idempotency record's
 * completion in ONE TransactWriteItems (at most 25 posts + 2 items, under the 100-item limit), so a
 * create costs the same number of requests for 1 target as for 25, and either all of it exists or
 * none of it does. The allowance is checked by the counter update's condition
 * (`ADD used :k IF attribute_not_exists(used) OR used <= limit - k`), so two concurrent creates can
 * never spend more than the limit together. The counter is only read when that condition fails:
 * then the first k posts that still fit (request order) are written and the rest are refused.
 *
 * A post only changes after create through conditional updates keyed on the state it was read in
 * (status, deletedAt, sendStartedAt), never through a blind Put, so a delete and the publish worker
 * can race without either undoing the other.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { unitsThatFit } from '../domain/allowance.js';
import { DependencyError } from '../domain/errors.js';
import type { Post, PostError } from '../domain/model.js';
import type { IdempotencyLock } from '../domain/idempotency-record.js';
import type { NewPostsResult, NewPostsWrite, PostListQuery, PostPage, PostPageKey, PostStore, ScheduleFailureWrite } from '../use-cases/ports/post-store.js';
import { documentClient } from './dynamo-client.js';
import {
  idempotencyCompletionUpdate,
  idempotencyRecordDelete,
  idempotencyResponseUpdate,
} from './dynamodb-idempotency-store.js';
import { indexAttributes, itemToPost, POST_INDEXES, postToItem, statusPartitionKey, type PostItem } from './post-item.js';
import { COUNTERS_TABLE, IDEMPOTENCY_TABLE, POSTS_TABLE } from './tables.js';

/** Each failed attempt means another request spent units or held the counter: bounded by the concurrency. */
const MAX_TRANSACTION_ATTEMPTS = 12;
/** A Query returns at most 1 MB: a page is topped up until full (never shrunk). */
const MAX_QUERY_ROUNDS = 10;
const INDEX_ATTRIBUTES = ['listPk', 'listSk', 'statusPk', 'duePk', 'dueSk'] as const;

export function allowanceCounterKey(userId: string, cycle: string): { pk: string } {
  return { pk: `ALLOWANCE#${userId}#${cycle}` };
}

/** The request's lock on its idempotency key was lost (it ran past the lock's expiry): nothing was written. */
export class IdempotencyLockLostError extends Error {
  readonly code = 'idempotency_lock_lost';
  constructor() {
    super('The idempotency record is no longer held by this request; nothing was written');
    this.name = 'IdempotencyLockLostError';
  }
}

/** A list start key that this store did not hand out for this user and filter. */
export class InvalidPageKeyError extends Error {
  readonly code = 'invalid_page_key';
  constructor() {
    super('The page key does not belong to this list');
    this.name = 'InvalidPageKeyError';
  }
}

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

function cancellationCodes(error: TransactionCanceledException): (string | undefined)[] {
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

/** Full jitter: concurrent requests that conflicted do not retry in lock step. */
function backoff(attempt: number): Promise<void> {
  return sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));
}

export interface DynamoDbPostStoreOptions {
  postsTable?: string;
  countersTable?: string;
  idempotencyTable?: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoDbPostStore implements PostStore {
  private readonly postsTable: string;
  private counters: string | undefined;
  private idempotency: string | undefined;
  private readonly client: DynamoDBDocumentClient;

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
    this.client = options.client ?? documentClient;
  }

  private get countersTable(): string {
    this.counters ??= requireEnv(COUNTERS_TABLE.envVar);
    return this.counters;
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  /* ------------------------------------------------------------------ create */

  async createPosts(write: NewPostsWrite): Promise<NewPostsResult> {
    const chargeable = write.posts.filter((post) => post.allowanceCycle !== null);
    const cycle = chargeable[0]?.allowanceCycle ?? null;
    if (chargeable.some((post) => post.allowanceCycle !== cycle)) {
      throw new Error('All posts of one create spend the allowance of the same cycle');
    }
    // Optimistic first try: no read of the counter; the condition is the check.
    let fit = unitsThatFit(chargeable.length, 0, write.allowanceLimit);

    for (let attempt = 1; ; attempt++) {
      const admitted = new Set(chargeable.slice(0, fit).map((post) => post.id));
      const written = write.posts.filter((post) => post.allowanceCycle === null || admitted.has(post.id));
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
            UpdateExpression: 'ADD used :units',
            ConditionExpression: 'attribute_not_exists(used) OR used <= :maxUsedBefore',
            ExpressionAttributeValues: { ':units': fit, ':maxUsedBefore': write.allowanceLimit - fit },
          },
        });
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
        throw new DependencyError('The posts transaction was cancelled', { cause: error });
      }
    }
  }

  /** Units of the allowance spent in a cycle (0 when nothing was spent yet). */
  async allowanceUsed(userId: string, cycle: string): Promise<number> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.countersTable, Key: allowanceCounterKey(userId, cycle), ConsistentRead: true }),
    );
    const used = out.Item?.used;
    return typeof used === 'number' ? used : 0;
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
            UpdateExpression: 'ADD used :units',
            ExpressionAttributeValues: { ':units': -units },
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
      ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt) AND attribute_not_exists(sendStartedAt)',
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':scheduled': 'scheduled',
        ':statusPk': statusPartitionKey(post.userId, 'failed'),
        ':error': { message: error.message, advice: error.advice },
        ':updatedAt': updatedAt,
      },
    };
  }

  /* ------------------------------------------------------------------ reads */

  async getPost(postId: string): Promise<Post | null> {
    // Strongly consistent: a get right after a delete must not see the post.
    const out = await this.client.send(new GetCommand({ TableName: this.postsTable, Key: { id: postId }, ConsistentRead: true }));
    return out.Item ? itemToPost(out.Item) : null;
  }

  async listPosts(query: PostListQuery): Promise<PostPage> {
    const byStatus = query.status !== null;
    const partition = byStatus ? statusPartitionKey(query.userId, query.status ?? '') : query.userId;
    const partitionAttribute = byStatus ? 'statusPk' : 'listPk';
    let startKey = query.startKey === null ? undefined : this.checkedStartKey(query.startKey, partitionAttribute, partition);

    // One item more than the page: whether it exists says if another page follows, so the last
    // page has nextCursor null instead of a cursor to an empty page.
    const wanted = query.limit + 1;
    const items: PostItem[] = [];
    for (let round = 0; round < MAX_QUERY_ROUNDS && items.length < wanted; round++) {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.postsTable,
          IndexName: byStatus ? POST_INDEXES.byUserStatus : POST_INDEXES.byUser,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': partitionAttribute },
          ExpressionAttributeValues: { ':pk': partition },
          ScanIndexForward: false,
          Limit: wanted - items.length,
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(out.Items ?? []));
      if (!out.LastEvaluatedKey) break;
      startKey = out.LastEvaluatedKey;
    }
    const page = items.slice(0, query.limit);
    const last = page[page.length - 1];
    const more = items.length > query.limit && last !== undefined;
    return {
      posts: page.map(itemToPost),
      nextKey: more ? { id: String(last.id), [partitionAttribute]: partition, listSk: String(last.listSk) } : null,
    };
  }

  /** Only a key this store built for this very list is accepted (defence in depth behind the cursor's signature). */
  private checkedStartKey(key: PostPageKey, partitionAttribute: string, partition: string): PostPageKey {
    const names = Object.keys(key).sort();
    const expected = ['id', 'listSk', partitionAttribute].sort();
    if (names.join() !== expected.join() || key[partitionAttribute] !== partition) throw new InvalidPageKeyError();
    if (!key.id || !key.listSk) throw new InvalidPageKeyError();
    return { ...key };
  }

  /* ------------------------------------------------------------------ delete */

  /** The post is still as it was read: same owner, same status, not deleted, and (scheduled) not claimed. */
  private unchangedCondition(post: Post) {
    const claimCheck = post.status === 'scheduled' ? ' AND attribute_not_exists(sendStartedAt)' : '';
    return {
      ConditionExpression: `#status = :status AND userId = :userId AND attribute_not_exists(deletedAt)${claimCheck}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': post.status, ':userId': post.userId },
    };
  }

  async removePost(post: Post, refundCycle: string | null): Promise<boolean> {
    const remove = { TableName: this.postsTable, Key: { id: post.id }, ...this.unchangedCondition(post) };
    if (refundCycle === null) {
      try {
        await this.client.send(new DeleteCommand(remove));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: remove },
              {
                Update: {
                  TableName: this.countersTable,
                  Key: allowanceCounterKey(post.userId, refundCycle),
                  UpdateExpression: 'ADD used :units',
                  ExpressionAttributeValues: { ':units': -1 },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = cancellationCodes(error);
        if (codes[0] === 'ConditionalCheckFailed') return false;
        if (!codes.includes('TransactionConflict') || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }

  async softDeletePost(post: Post, options: { deleteFromPlatform: boolean; now: Date }): Promise<Post | null> {
    const condition = this.unchangedCondition(post);
    // A scheduled post is only soft-deleted once the worker has claimed it (it may be live).
    const conditionExpression =
      post.status === 'scheduled'
        ? condition.ConditionExpression.replace('attribute_not_exists(sendStartedAt)', 'attribute_exists(sendStartedAt)')
        : condition.ConditionExpression;
    const set = ['deletedAt = :now', 'updatedAt = :now'];
    const values: Record<string, unknown> = { ...condition.ExpressionAttributeValues, ':now': options.now.toISOString() };
    if (options.deleteFromPlatform) {
      set.push('deleteFromPlatformRequested = :true');
      values[':true'] = true;
    }
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.postsTable,
          Key: { id: post.id },
          UpdateExpression: `SET ${set.join(', ')} REMOVE ${INDEX_ATTRIBUTES.join(', ')}`,
          ConditionExpression: conditionExpression,
          ExpressionAttributeNames: condition.ExpressionAttributeNames,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? itemToPost(out.Attributes) : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  async restoreSoftDeleted(post: Post): Promise<void> {
    const index = indexAttributes({ ...post, deletedAt: null });
    const names = Object.keys(index);
    const values: Record<string, unknown> = Object.fromEntries(names.map((name) => [`:${name}`, index[name as keyof typeof index]]));
    await this.client.send(
      new UpdateCommand({
        TableName: this.postsTable,
        Key: { id: post.id },
        UpdateExpression: `SET ${[...names.map((name) => `${name} = :${name}`), 'deleteFromPlatformRequested = :requested', 'updatedAt = :updatedAt'].join(', ')} REMOVE deletedAt`,
        ConditionExpression: 'attribute_exists(deletedAt) AND #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ...values,
          ':requested': post.deleteFromPlatformRequested,
          ':updatedAt': post.updatedAt,
          ':status': post.status,
        },
      }),
    );
  }

  /* ------------------------------------------------------------------ publish worker */

  /**
   * For the publish worker: the post went out. A post deleted while it was being sent stays
   * deleted (no index attribute comes back); the post returned says so (deletedAt,
   * deleteFromPlatformRequested), so the worker can queue the deletion of the live post. Null when
   * the post is not scheduled any more (already recorded, or removed).
   */
  recordPublished(
    post: Post,
    outcome: { publishedAt: string; publishedUrl: string; platformPostId: string },
    now: Date,
  ): Promise<Post | null> {
    return this.recordOutcome(post, 'published', now, {
      publishedAt: outcome.publishedAt,
      publishedUrl: outcome.publishedUrl,
      platformPostId: outcome.platformPostId,
    });
  }

  /** For the publish worker: the post did not go out (error shown as the post's error). Same rules as recordPublished. */
  recordFailed(post: Post, error: PostError, now: Date): Promise<Post | null> {
    return this.recordOutcome(post, 'failed', now, { error: { message: error.message, advice: error.advice } });
  }

  private async recordOutcome(
    post: Post,
    status: 'published' | 'failed',
    now: Date,
    fields: Record<string, unknown>,
  ): Promise<Post | null> {
    const set = Object.keys(fields).map((name) => `#f_${name} = :f_${name}`);
    const names: Record<string, string> = { '#status': 'status', ...Object.fromEntries(Object.keys(fields).map((name) => [`#f_${name}`, name])) };
    const values: Record<string, unknown> = {
      ':status': status,
      ':scheduled': 'scheduled',
      ':now': now.toISOString(),
      ...Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:f_${name}`, value])),
    };
    const attempts = [
      // A live post: its status index moves with it, and it leaves the due index.
      {
        UpdateExpression: `SET #status = :status, updatedAt = :now, statusPk = :statusPk, ${set.join(', ')} REMOVE duePk, dueSk`,
        ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ...values, ':statusPk': statusPartitionKey(post.userId, status) },
      },
      // Deleted while it was being sent: record what happened, keep it out of every index.
      {
        UpdateExpression: `SET #status = :status, updatedAt = :now, ${set.join(', ')}`,
        ConditionExpression: '#status = :scheduled AND attribute_exists(deletedAt)',
        ExpressionAttributeValues: values,
      },
    ];
    for (const attempt of attempts) {
      try {
        const out = await this.client.send(
          new UpdateCommand({
            TableName: this.postsTable,
            Key: { id: post.id },
            ExpressionAttributeNames: names,
            ReturnValues: 'ALL_NEW',
            ...attempt,
          }),
        );
        return out.Attributes ? itemToPost(out.Attributes) : null;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return null;
  }
}
