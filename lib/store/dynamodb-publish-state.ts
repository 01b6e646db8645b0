/**
 * The publish worker's and the sweeper's writes to the posts table. The post itself is read and
 * written through the one item mapping (post-item.ts) and the outcome writes (post-outcome.ts); what
 * this file adds is the worker's bookkeeping on the same item, which itemToPost never returns:
 *
 *   claimToken, claimUntil   who is sending the post now, and until when (a lease: a worker that
 *                            stopped mid-send is replaced once it runs out)
 *   publishAttempts          attempts so far; firstAttemptAt starts the 15-minute retry window
 *   retryAt                  next attempt after a transient failure
 *   platformCreateSentAt     the create request of an attempt went to the platform and its
 *                            outcome is not recorded yet: a later attempt must not resend blindly
 *   sweptAt                  the sweeper last put a message back for the post
 *   platformDeletedAt        deleteFromPlatform done
 *
 * (firstClaimedAt, the Post's own field, is a different fact: the worker's first claim, never
 * cleared, after which the post may be live.)
 *
 * Every write is conditional on the state it expects (status, deletedAt, claim token), so a delete,
 * a duplicate message and the sweeper can race the worker without undoing each other.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import type { Post, PostError } from '../domain/model.js';
import type { ClaimResult, PostForPublishing, PublishState } from '../domain/publish-state.js';
import type { PublishStateStore } from '../use-cases/ports/publish-state-store.js';
import { documentClient } from './dynamo-client.js';
import { readItem } from './item-schema.js';
import { duePartitionKey, FIRST_CLAIMED_ATTRIBUTE, itemToPost, POST_INDEXES, type PostItem } from './post-item.js';
import { recordPostOutcome } from './post-outcome.js';
import { POSTS_TABLE } from './tables.js';

/** The worker's bookkeeping attributes; each absent until first written (a value of another type reads as absent). */
const bookkeepingString = v.fallback(v.nullable(v.string()), null);
const PUBLISH_STATE_ITEM = v.object({
  claimToken: bookkeepingString,
  claimUntil: bookkeepingString,
  publishAttempts: v.fallback(v.number(), 0),
  firstAttemptAt: bookkeepingString,
  retryAt: bookkeepingString,
  platformCreateSentAt: bookkeepingString,
  sweptAt: bookkeepingString,
  platformDeletedAt: bookkeepingString,
});

function publishStateOf(item: PostItem): PublishState {
  const { publishAttempts, ...state } = readItem(PUBLISH_STATE_ITEM, item, `Post item ${String(item.id)}`);
  return { ...state, attempts: publishAttempts };
}

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
}

export class DynamoDbPublishState implements PublishStateStore {
  private readonly table: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DynamoDbPublishStateOptions = {}) {
    this.table = options.postsTable ?? requireEnv(POSTS_TABLE.envVar);
    this.client = options.client ?? documentClient;
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
            `SET claimToken = :token, claimUntil = :until, ${FIRST_CLAIMED_ATTRIBUTE} = if_not_exists(${FIRST_CLAIMED_ATTRIBUTE}, :now), ` +
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
          // platformCreateSentAt survives only an attempt whose outcome was never recorded.
          uncertain: state.platformCreateSentAt !== null,
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
          UpdateExpression: 'SET platformCreateSentAt = :now',
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
          UpdateExpression: `SET retryAt = :retryAt REMOVE claimToken, claimUntil${input.uncertain ? '' : ', platformCreateSentAt'}`,
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
    return recordPostOutcome(this.client, this.table, post, { status: 'published', ...outcome }, now);
  }

  recordFailed(post: Post, error: PostError, now: Date): Promise<Post | null> {
    return recordPostOutcome(this.client, this.table, post, { status: 'failed', error }, now);
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
      for (const item of out.Items ?? []) found.push({ post: itemToPost(item), state: publishStateOf(item) });
      startKey = out.LastEvaluatedKey;
    } while (startKey && found.length < input.limit);
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
