/**
 * Posts in DynamoDB (layout: lib/store/post-item.ts). Every operation is a GetItem, a Query on
 * one of the posts indexes, or a conditional write; nothing scans and no page is filtered.
 *
 * Create and its undo are one transaction each, with the allowance counter and the idempotency
 * record: lib/store/post-create-writes.ts. The publish outcome is the worker's
 * (lib/store/post-outcome.ts, through DynamoDbPublishState).
 *
 * A post only changes after create through conditional updates keyed on the state it was read in
 * (status, deletedAt, inFlightSince), never through a blind Put, so a delete and the publish worker
 * can race without either undoing the other.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Post } from '../domain/model.js';
import type { NewPostsResult, NewPostsWrite, PostListQuery, PostPage, PostPageKey, PostStore, ScheduleFailureWrite } from '../use-cases/ports/post-store.js';
import { platformDeletionPendingSince } from '../domain/post-deletion.js';
import { queueSlotDelete } from './dynamodb-queue-store.js';
import { indexAttributes, itemToPost, platformDeletionDueKeys, POST_INDEXES, statusPartitionKey, type PostItem } from './post-item.js';
import { allowanceCounterExpiresAt } from '../domain/allowance.js';
import {
  ALLOWANCE_UPDATE,
  allowanceCounterKey,
  MAX_TRANSACTION_ATTEMPTS,
  PostCreateWrites,
  type DynamoDbPostStoreOptions,
} from './post-create-writes.js';
import { transactWithRetry, type TransactItem } from './transactions.js';

export { allowanceCounterKey, type DynamoDbPostStoreOptions } from './post-create-writes.js';

/** A Query returns at most 1 MB: a page is topped up until full (never shrunk). */
const MAX_QUERY_ROUNDS = 10;
const INDEX_ATTRIBUTES = ['listPk', 'listSk', 'statusPk', 'duePk', 'dueSk'] as const;

/** A list start key that this store did not hand out for this user and filter. */
export class InvalidPageKeyError extends Error {
  readonly code = 'invalid_page_key';
  constructor() {
    super('The page key does not belong to this list');
    this.name = 'InvalidPageKeyError';
  }
}

export class DynamoDbPostStore implements PostStore {
  private readonly creates: PostCreateWrites;
  private readonly postsTable: string;
  private readonly client: DynamoDBDocumentClient;

  /** Table names: see PostCreateWrites (the posts table at once, the others on first use). */
  constructor(options: DynamoDbPostStoreOptions = {}) {
    this.creates = new PostCreateWrites(options);
    this.postsTable = this.creates.postsTable;
    this.client = this.creates.client;
  }

  /* ------------------------------------------------------------------ create (post-create-writes.ts) */

  createPosts(write: NewPostsWrite): Promise<NewPostsResult> {
    return this.creates.createPosts(write);
  }

  markScheduleFailed(write: ScheduleFailureWrite): Promise<Post[]> {
    return this.creates.markScheduleFailed(write);
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
          // listSk is `<createdAt>#<id>`: "created before" is a range of the sort key, not a filter.
          KeyConditionExpression: query.createdBefore === undefined ? '#pk = :pk' : '#pk = :pk AND listSk < :before',
          ExpressionAttributeNames: { '#pk': partitionAttribute },
          ExpressionAttributeValues: { ':pk': partition, ...(query.createdBefore === undefined ? {} : { ':before': query.createdBefore }) },
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
    const claimCheck = post.status === 'scheduled' ? ' AND attribute_not_exists(inFlightSince)' : '';
    return {
      ConditionExpression: `#status = :status AND userId = :userId AND attribute_not_exists(deletedAt)${claimCheck}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': post.status, ':userId': post.userId },
    };
  }

  async removePost(post: Post, refundCycle: string | null): Promise<boolean> {
    const remove = { TableName: this.postsTable, Key: { id: post.id }, ...this.unchangedCondition(post) };
    // A cancelled post that held a queue slot gives it back in the same transaction; so does a
    // failed one: one that could not be queued at its create (schedule_failed) keeps its slot until
    // it is retried or deleted (a failed post whose slot has passed deletes an item already gone).
    const freesSlot = post.queueSlot === true && (post.status === 'scheduled' || post.status === 'failed');
    if (refundCycle === null && !freesSlot) {
      try {
        await this.client.send(new DeleteCommand(remove));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    }
    const items: TransactItem[] = [{ Delete: remove }];
    if (refundCycle !== null) {
      items.push({
        Update: {
          TableName: this.creates.countersTable,
          Key: allowanceCounterKey(post.userId, refundCycle),
          UpdateExpression: ALLOWANCE_UPDATE,
          ExpressionAttributeValues: { ':units': -1, ':expiresAt': allowanceCounterExpiresAt(refundCycle) },
        },
      });
    }
    if (freesSlot) items.push({ Delete: queueSlotDelete(this.creates.directoryTable, post) });
    return transactWithRetry(this.client, items, {
      attempts: MAX_TRANSACTION_ATTEMPTS,
      written: true,
      cancelled: (codes) => (codes[0] === 'ConditionalCheckFailed' ? false : undefined),
    });
  }

  async softDeletePost(post: Post, options: { deleteFromPlatform: boolean; now: Date }): Promise<Post | null> {
    const condition = this.unchangedCondition(post);
    // A scheduled post is only soft-deleted once the worker has claimed it (it may be live).
    const conditionExpression =
      post.status === 'scheduled'
        ? condition.ConditionExpression.replace('attribute_not_exists(inFlightSince)', 'attribute_exists(inFlightSince)')
        : condition.ConditionExpression;
    const set = ['deletedAt = :now', 'updatedAt = :now'];
    const values: Record<string, unknown> = { ...condition.ExpressionAttributeValues, ':now': options.now.toISOString() };
    if (options.deleteFromPlatform) {
      set.push('deleteFromPlatformRequested = :true');
      values[':true'] = true;
    }
    // A post whose live copy must come down stays in the due index (never read by the API) until
    // that is done, so the sweeper brings it back if its message is lost (post-item.ts): a
    // scheduled one keeps its entry until the worker has settled it, a published one gets its
    // deletion's entry in this very write (the queue message DeletePost sends next may never go,
    // or go down with its queue). A scheduled one keeps it without deleteFromPlatform too: if its
    // create turns out not to have gone out, settling it gives its allowance unit back.
    const keepDue = post.status === 'scheduled';
    const pendingSince = post.status === 'published' && options.deleteFromPlatform && post.platformPostId !== null
      ? platformDeletionPendingSince({ deletedAt: options.now.toISOString(), publishedAt: post.publishedAt })
      : null;
    if (pendingSince !== null) {
      const due = platformDeletionDueKeys(post.id, pendingSince);
      set.push('duePk = :duePk', 'dueSk = :dueSk');
      values[':duePk'] = due.duePk;
      values[':dueSk'] = due.dueSk;
    }
    const removed = INDEX_ATTRIBUTES.filter((name) => !(keepDue || pendingSince !== null) || (name !== 'duePk' && name !== 'dueSk'));
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.postsTable,
          Key: { id: post.id },
          UpdateExpression: `SET ${set.join(', ')} REMOVE ${removed.join(', ')}`,
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
    // A published post leaves the due index again (softDeletePost gave it its deletion's entry).
    const removed = ['deletedAt', ...INDEX_ATTRIBUTES.filter((name) => (name === 'duePk' || name === 'dueSk') && !names.includes(name))];
    await this.client.send(
      new UpdateCommand({
        TableName: this.postsTable,
        Key: { id: post.id },
        UpdateExpression: `SET ${[...names.map((name) => `${name} = :${name}`), 'deleteFromPlatformRequested = :requested', 'updatedAt = :updatedAt'].join(', ')} REMOVE ${removed.join(', ')}`,
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
}
