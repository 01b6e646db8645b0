/**
 * The publish worker's and the sweeper's writes to the posts table. The post itself is read and
 * written through the one item mapping (post-item.ts) and the post store's outcome writes; what
 * this file adds is the worker's bookkeeping on the same item, which itemToPost never returns:
 *
 *   claimToken, claimUntil   who is sending the post now, and until when (a lease: a worker that
 *                            stopped mid-send is replaced once it runs out)
 *   publishAttempts          attempts so far; firstAttemptAt starts the 15-minute retry window
 *   retryAt                  next attempt after a transient failure
 *   createSentAt             a create request went out and its outcome is not recorded yet: a later
 *                            attempt must not resend blindly
 *   sweptAt                  the sweeper last put a message back for the post
 *   platformDeletedAt        deleteFromPlatform done
 *
 * Every write is conditional on the state it expects (status, deletedAt, claim token), so a delete,
 * a duplicate message and the sweeper can race the worker without undoing each other.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { requireEnv } from '../config.js';
import type { Post, PostError } from '../domain/model.js';
import type { ClaimResult, PostForPublishing, PublishState, PublishStateStore } from '../ports.js';
import { documentClient } from './dynamo-client.js';
import { DynamoDbPostStore } from './dynamodb-post-store.js';
import { duePartitionKey, itemToPost, POST_INDEXES, SEND_STARTED_ATTRIBUTE, type PostItem } from './post-item.js';
import { POSTS_TABLE } from './tables.js';

function optionalString(item: PostItem, field: string): string | null {
  const value = item[field];
  return typeof value === 'string' ? value : null;
}

function publishStateOf(item: PostItem): PublishState {
  const attempts = item.publishAttempts;
  return {
    claimToken: optionalString(item, 'claimToken'),
    claimUntil: optionalString(item, 'claimUntil'),
    attempts: typeof attempts === 'number' ? attempts : 0,
    firstAttemptAt: optionalString(item, 'firstAttemptAt'),
    retryAt: optionalString(item, 'retryAt'),
    createSentAt: optionalString(item, 'createSentAt'),
    sweptAt: optionalString(item, 'sweptAt'),
    platformDeletedAt: optionalString(item, 'platformDeletedAt'),
  };
}

/** BatchGetItem's most keys per request, and how often unprocessed keys are retried (with backoff). */
const BATCH_GET_LIMIT = 100;
const BATCH_GET_ROUNDS = 5;

async function conditional<T>(write: () => Promise<T>): Promise<T | null> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return null;
    throw error;
  }
}

export interface DynamoDbPublishStateOptions {
  postsTable?: string;
  client?: DynamoDBDocumentClient;
  /** The post store whose outcome writes (published/failed) are reused. */
  postStore?: DynamoDbPostStore;
}

export class DynamoDbPublishState implements PublishStateStore {
  private readonly table: string;
  private readonly client: DynamoDBDocumentClient;
  private readonly posts: DynamoDbPostStore;

  constructor(options: DynamoDbPublishStateOptions = {}) {
    this.table = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.client = options.client ?? documentClient;
    // The outcome writes touch the posts table only, so the worker needs no access to the others.
    this.posts =
      options.postStore ??
      new DynamoDbPostStore({ postsTable: this.table, countersTable: 'not-used-by-outcome-writes', idempotencyTable: 'not-used-by-outcome-writes', client: this.client });
  }

  async getPostForPublishing(postId: string): Promise<PostForPublishing | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.table, Key: { id: postId }, ConsistentRead: true }));
    return out.Item ? { post: itemToPost(out.Item), state: publishStateOf(out.Item) } : null;
  }

  /**
   * The claim is the worker's first request for a post: the condition is the whole check (due,
   * scheduled, not deleted, not held), and ALL_NEW gives back the post to send. When the
   * condition fails, DynamoDB returns the item as it was (ReturnValuesOnConditionCheckFailure),
   * so a duplicate delivery or a cancelled post costs this one request too. An update whose
   * condition fails never creates the item, so a post already removed stays removed.
   */
  async claim(postId: string, input: { token: string; now: Date; leaseUntil: Date }): Promise<ClaimResult> {
    const now = input.now.toISOString();
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression:
            `SET claimToken = :token, claimUntil = :until, ${SEND_STARTED_ATTRIBUTE} = if_not_exists(${SEND_STARTED_ATTRIBUTE}, :now), ` +
            'firstAttemptAt = if_not_exists(firstAttemptAt, :now) ADD publishAttempts :one REMOVE retryAt',
          // ISO times written by toISOString compare as strings in time order.
          ConditionExpression:
            '#status = :scheduled AND attribute_not_exists(deletedAt) AND scheduledFor <= :now ' +
            'AND (attribute_not_exists(retryAt) OR retryAt <= :now) AND (attribute_not_exists(claimUntil) OR claimUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':token': input.token,
            ':until': input.leaseUntil.toISOString(),
            ':now': now,
            ':one': 1,
            ':scheduled': 'scheduled',
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const item = out.Attributes;
      if (!item) throw new Error(`The claim of post ${postId} returned no item`);
      const state = publishStateOf(item);
      return {
        claimed: true,
        post: itemToPost(item),
        claim: {
          token: input.token,
          attempt: state.attempts,
          firstAttemptAt: state.firstAttemptAt ?? now,
          // createSentAt survives only an attempt whose outcome was never recorded.
          uncertain: state.createSentAt !== null,
        },
      };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client does not unmarshall an error's item.
      const item = error.Item ? unmarshall(error.Item) : null;
      return { claimed: false, current: item ? { post: itemToPost(item), state: publishStateOf(item) } : null };
    }
  }

  async markCreateSending(postId: string, token: string, now: Date): Promise<boolean> {
    const out = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'SET createSentAt = :now',
          ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt) AND claimToken = :token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': now.toISOString(), ':token': token, ':scheduled': 'scheduled' },
        }),
      ),
    );
    return out !== null;
  }

  async releaseForRetry(postId: string, token: string, input: { retryAt: Date; uncertain: boolean }): Promise<boolean> {
    const out = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: `SET retryAt = :retryAt REMOVE claimToken, claimUntil${input.uncertain ? '' : ', createSentAt'}`,
          ConditionExpression: '#status = :scheduled AND claimToken = :token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':retryAt': input.retryAt.toISOString(), ':token': token, ':scheduled': 'scheduled' },
        }),
      ),
    );
    return out !== null;
  }

  async release(postId: string, token: string): Promise<void> {
    await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'REMOVE claimToken, claimUntil',
          ConditionExpression: 'claimToken = :token',
          ExpressionAttributeValues: { ':token': token },
        }),
      ),
    );
  }

  recordPublished(post: Post, outcome: { publishedAt: string; publishedUrl: string; platformPostId: string }, now: Date): Promise<Post | null> {
    return this.posts.recordPublished(post, outcome, now);
  }

  recordFailed(post: Post, error: PostError, now: Date): Promise<Post | null> {
    return this.posts.recordFailed(post, error, now);
  }

  async listDue(shard: number, input: { dueFrom: string | null; dueTo: string; limit: number }): Promise<PostForPublishing[]> {
    const found: PostForPublishing[] = [];
    let startKey: Record<string, unknown> | undefined;
    // dueSk is `<scheduledFor>#<id>`: comparing with the bare ISO time orders it before every id of that instant.
    const condition = input.dueFrom === null ? 'duePk = :pk AND dueSk < :to' : 'duePk = :pk AND dueSk BETWEEN :from AND :to';
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: POST_INDEXES.byDue,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: {
            ':pk': duePartitionKey(shard),
            ':to': input.dueTo,
            ...(input.dueFrom === null ? {} : { ':from': input.dueFrom }),
          },
          Limit: input.limit - found.length,
          ExclusiveStartKey: startKey,
        }),
      );
      // byDue copies keys only (tables.ts): the posts themselves are read from the table.
      found.push(...(await this.readPosts((out.Items ?? []).map((item) => String(item.id)))));
      startKey = out.LastEvaluatedKey;
    } while (startKey && found.length < input.limit);
    return found;
  }

  /**
   * The sweeper's candidates, strongly consistent (so a claim made a moment ago is seen), in
   * BatchGetItem chunks of 100; a post deleted since the index was read is simply absent.
   */
  private async readPosts(ids: string[]): Promise<PostForPublishing[]> {
    const found: PostForPublishing[] = [];
    for (let start = 0; start < ids.length; start += BATCH_GET_LIMIT) {
      let keys: Record<string, unknown>[] = ids.slice(start, start + BATCH_GET_LIMIT).map((id) => ({ id }));
      for (let round = 0; keys.length > 0; round++) {
        if (round > 0) await sleep(Math.min(1_000, 50 * 2 ** round));
        const out = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }));
        for (const item of out.Responses?.[this.table] ?? []) found.push({ post: itemToPost(item), state: publishStateOf(item) });
        keys = out.UnprocessedKeys?.[this.table]?.Keys ?? [];
        if (round >= BATCH_GET_ROUNDS && keys.length > 0) throw new Error(`BatchGetItem left ${keys.length} posts unread after ${BATCH_GET_ROUNDS} retries`);
      }
    }
    return found;
  }

  async markSwept(postId: string, input: { now: Date; sweptBefore: Date }): Promise<boolean> {
    const out = await conditional(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id: postId },
          UpdateExpression: 'SET sweptAt = :now',
          ConditionExpression:
            '#status = :scheduled AND attribute_not_exists(deletedAt) AND (attribute_not_exists(sweptAt) OR sweptAt < :before) ' +
            'AND (attribute_not_exists(claimUntil) OR claimUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': input.now.toISOString(), ':before': input.sweptBefore.toISOString(), ':scheduled': 'scheduled' },
        }),
      ),
    );
    return out !== null;
  }

  async markPlatformDeleted(postId: string, now: Date): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id: postId },
        UpdateExpression: 'SET platformDeletedAt = if_not_exists(platformDeletedAt, :now)',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
      }),
    );
  }
}
