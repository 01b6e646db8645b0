/**
 * The post lifecycle's writes (PATCH, publish, retry: lib/use-cases/update-post.ts,
 * publish-draft.ts, retry-post.ts). Each change is ONE conditional write of the whole post as the
 * change leaves it, through the one item mapping (post-item.ts: its status and due index move
 * with it), made a transaction only when the allowance counter or an idempotency record goes with
 * it. The condition is the race's referee:
 *
 *   every change   same owner, same status, same `revision` as read, not deleted
 *   draft, scheduled  no publish attempt has begun: no claimToken (the worker's claim), no
 *                  firstAttemptAt (an attempt that gave the post back for a retry), no
 *                  inFlightSince / platformCreateSentAt (the "sent" marker)
 *   failed         its error is retryable (two retries: the first turns it scheduled, the second fails here)
 *
 * The worker's claim (dynamodb-publish-state.ts) is conditional on the post and returns it as it
 * was claimed, so a PATCH either lands before the claim (and the worker sends the new text) or
 * fails here after it (409): never half-applied, never the old text after a 200.
 *
 * `revision` (a number, absent until the first change) is bookkeeping like the worker's: itemToPost
 * leaves it out. A retry also clears the worker's bookkeeping of the earlier attempts, so the new
 * attempt has its own 15-minute window and nothing of the old one is taken for a create in doubt.
 */
import { transactWithRetry, type TransactItem } from './transactions.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import { allowanceCounterExpiresAt } from '../domain/allowance.js';
import { DependencyError } from '../domain/errors.js';
import type { PostChangeResult, PostChangeStore, PostChangeWrite, PostForChange } from '../use-cases/ports/post-change-store.js';
import { documentClient } from './dynamo-client.js';
import { IdempotencyLockLostError, idempotencyCompletionUpdate } from './idempotency-record-writes.js';
import { readItem } from './item-schema.js';
import { IN_FLIGHT_ATTRIBUTE, itemToPost, postToItem } from './post-item.js';
import { ALLOWANCE_UPDATE, allowanceCounterKey, MAX_TRANSACTION_ATTEMPTS } from './post-create-writes.js';
import { QueueSlotTakenError } from '../domain/queue.js';
import { queueSlotDelete, queueSlotPut } from './dynamodb-queue-store.js';
import { COUNTERS_TABLE, DIRECTORY_TABLE, IDEMPOTENCY_TABLE, POSTS_TABLE } from './tables.js';

/**
 * Post attributes that are absent when null or empty (post-item.ts): a change that clears one
 * removes it (a PATCH that turns a thread into a poll drops threadParts, one without a first
 * comment drops firstComment).
 */
const NULLABLE_ATTRIBUTES = [
  'publishedAt',
  'publishedUrl',
  'platformPostId',
  'error',
  'deletedAt',
  'allowanceCycle',
  IN_FLIGHT_ATTRIBUTE,
  'duePk',
  'dueSk',
  'threadParts',
  'firstComment',
  'queueSlot',
] as const;
/** The worker's bookkeeping (dynamodb-publish-state.ts) that a retry clears. */
const PUBLISH_STATE_ATTRIBUTES = [
  'claimToken',
  'claimUntil',
  'publishAttempts',
  'publishFailures',
  'firstAttemptAt',
  'retryAt',
  'platformCreateSentAt',
  'platformCreateMediaIds',
  'sweptAt',
] as const;
/** Any of these: a publish attempt has begun. */
const ATTEMPT_ATTRIBUTES = ['claimToken', 'firstAttemptAt', IN_FLIGHT_ATTRIBUTE, 'platformCreateSentAt'] as const;

const CHANGE_STATE_ITEM = v.object({
  revision: v.fallback(v.number(), 0),
  ...Object.fromEntries(ATTEMPT_ATTRIBUTES.map((name) => [name, v.fallback(v.nullable(v.unknown()), null)])),
});

export interface DynamoDbPostChangesOptions {
  postsTable?: string;
  countersTable?: string;
  idempotencyTable?: string;
  directoryTable?: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoDbPostChanges implements PostChangeStore {
  private readonly postsTable: string;
  private counters: string | undefined;
  private idempotency: string | undefined;
  private directory: string | undefined;
  private readonly client: DynamoDBDocumentClient;

  /** The counters and idempotency tables are read at their first use, as PostCreateWrites does. */
  constructor(options: DynamoDbPostChangesOptions = {}) {
    this.postsTable = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.counters = options.countersTable;
    this.idempotency = options.idempotencyTable;
    this.directory = options.directoryTable;
    this.client = options.client ?? documentClient;
  }

  /** Only a change that takes or gives back a queue slot writes the directory (the slot items). */
  private get directoryTable(): string {
    this.directory ??= requireEnv(DIRECTORY_TABLE.envVar);
    return this.directory;
  }

  private get countersTable(): string {
    this.counters ??= requireEnv(COUNTERS_TABLE.envVar);
    return this.counters;
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  async getPostForChange(postId: string): Promise<PostForChange | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.postsTable, Key: { id: postId }, ConsistentRead: true }));
    if (!out.Item) return null;
    const state = readItem(CHANGE_STATE_ITEM, out.Item, `Post item ${postId}`) as Record<string, unknown> & { revision: number };
    return {
      post: itemToPost(out.Item),
      revision: state.revision,
      progress: { attemptStarted: ATTEMPT_ATTRIBUTES.some((name) => state[name] !== null && state[name] !== undefined) },
    };
  }

  async changePost(write: PostChangeWrite): Promise<PostChangeResult> {
    const update = this.postUpdate(write);
    const items: TransactItem[] = [{ Update: update }];
    let counterIndex = -1;
    if (write.spend !== null) {
      const cycle = write.after.allowanceCycle;
      if (cycle === null) throw new Error('A change that spends a unit names the cycle it spends');
      // A plan without units: the counter's condition would pass on a counter not written yet.
      if (write.spend.allowanceLimit < 1) return { outcome: 'over_allowance' };
      counterIndex = items.length;
      items.push({
        Update: {
          TableName: this.countersTable,
          Key: allowanceCounterKey(write.after.userId, cycle),
          UpdateExpression: ALLOWANCE_UPDATE,
          ConditionExpression: 'attribute_not_exists(used) OR used <= :maxUsedBefore',
          ExpressionAttributeValues: { ':units': 1, ':maxUsedBefore': write.spend.allowanceLimit - 1, ':expiresAt': allowanceCounterExpiresAt(cycle) },
        },
      });
    }
    // Queue slots move with the post in the same transaction: the old one given back, a new one
    // taken only if nobody holds it (QueueSlotTakenError: the use case chooses again).
    const { before, after } = write;
    const heldBefore = before.post.queueSlot === true;
    const holdsAfter = after.queueSlot === true && after.status === 'scheduled';
    const sameSlot = heldBefore && holdsAfter && before.post.scheduledFor === after.scheduledFor;
    if (heldBefore && !sameSlot) items.push({ Delete: queueSlotDelete(this.directoryTable, before.post) });
    let slotIndex = -1;
    if (holdsAfter && !sameSlot) {
      slotIndex = items.length;
      items.push({ Put: queueSlotPut(this.directoryTable, { accountId: after.accountId, scheduledFor: after.scheduledFor, postId: after.id }) });
    }
    let idempotencyIndex = -1;
    if (write.idempotency !== null) {
      idempotencyIndex = items.length;
      items.push({ Update: idempotencyCompletionUpdate(this.idempotencyTable, write.idempotency.lock, write.idempotency.response) });
    }

    if (items.length === 1) {
      try {
        await this.client.send(new UpdateCommand(update));
        return { outcome: 'applied', post: write.after };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { outcome: 'conflict' };
        throw error;
      }
    }
    return transactWithRetry<PostChangeResult>(this.client, items, {
      attempts: MAX_TRANSACTION_ATTEMPTS,
      written: { outcome: 'applied', post: write.after },
      cancelled: (codes) => {
        if (codes[0] === 'ConditionalCheckFailed') return { outcome: 'conflict' };
        if (counterIndex >= 0 && codes[counterIndex] === 'ConditionalCheckFailed') return { outcome: 'over_allowance' };
        if (slotIndex >= 0 && codes[slotIndex] === 'ConditionalCheckFailed') {
          throw new QueueSlotTakenError([{ accountId: after.accountId, scheduledFor: after.scheduledFor }]);
        }
        if (idempotencyIndex >= 0 && codes[idempotencyIndex] === 'ConditionalCheckFailed') throw new IdempotencyLockLostError();
        return undefined;
      },
      giveUp: (error) => new DependencyError('The post change transaction was cancelled', { cause: error }),
    });
  }

  /** The whole post as the change leaves it, conditional on it being as it was read (see the file's comment). */
  private postUpdate(write: PostChangeWrite) {
    const { before, after } = write;
    const item = postToItem(after);
    const names: Record<string, string> = { '#status': 'status', '#userId': 'userId', '#revision': 'revision' };
    const values: Record<string, unknown> = { ':beforeStatus': before.post.status, ':userId': before.post.userId, ':nextRevision': before.revision + 1 };
    const set: string[] = ['#revision = :nextRevision'];
    Object.entries(item).forEach(([name, value], index) => {
      if (name === 'id' || name === 'userId') return;
      names[`#a${index}`] = name;
      values[`:a${index}`] = value;
      set.push(`#a${index} = :a${index}`);
    });
    const remove = [...NULLABLE_ATTRIBUTES.filter((name) => !(name in item)), ...(write.resetPublishState ? PUBLISH_STATE_ATTRIBUTES : [])];
    remove.forEach((name, index) => {
      names[`#r${index}`] = name;
    });
    const conditions = ['#userId = :userId', '#status = :beforeStatus', 'attribute_not_exists(deletedAt)'];
    if (before.revision === 0) conditions.push('attribute_not_exists(#revision)');
    else {
      conditions.push('#revision = :revision');
      values[':revision'] = before.revision;
    }
    if (before.post.status === 'draft' || before.post.status === 'scheduled') {
      conditions.push(...ATTEMPT_ATTRIBUTES.map((name) => `attribute_not_exists(${name})`));
    } else if (before.post.status === 'failed') {
      names['#error'] = 'error';
      names['#retryable'] = 'retryable';
      values[':true'] = true;
      conditions.push('#error.#retryable = :true');
    }
    return {
      TableName: this.postsTable,
      Key: { id: before.post.id },
      UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.map((_, index) => `#r${index}`).join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
  }
}
