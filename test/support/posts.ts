/**
 * Helpers for the post tests: a stack with limits high enough that many requests per test never
 * meet the rate limiter (its own tests lower them), reading a queue with the real SDK, and reading
 * or changing a post item directly (only to stand in for what the publish worker does to a post).
 */
import { ReceiveMessageCommand, DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { sqsClientFor } from '../../local/messaging.js';
import { ENV } from '../../lib/config.js';
import type { Post } from '../../lib/domain/model.js';
import { allowanceCounterKey, DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { DynamoDbPublishState } from '../../lib/store/dynamodb-publish-state.js';
import { startTestStack, type TestStack, type TestStackOptions } from './stack.js';

export const GENEROUS_LIMITS = { [ENV.rateLimitPerMinute]: '1000000', [ENV.rateLimitPerDay]: '100000000' };

export function startPostsStack(options: TestStackOptions = {}): Promise<TestStack> {
  return startTestStack({ ...options, env: { ...GENEROUS_LIMITS, ...(options.env ?? {}) } });
}

/** Every message now visible on a queue (received and deleted), bodies parsed as JSON. */
export async function drainQueue(stack: TestStack, queueUrl: string): Promise<unknown[]> {
  const sqs = sqsClientFor(stack.info.sqsEndpoint);
  const bodies: unknown[] = [];
  try {
    for (let round = 0; round < 20; round++) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      const messages = out.Messages ?? [];
      if (messages.length === 0) break;
      for (const message of messages) {
        bodies.push(JSON.parse(message.Body ?? 'null'));
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      }
    }
  } finally {
    sqs.destroy();
  }
  return bodies;
}

export interface PostsBackdoor {
  store: DynamoDbPostStore;
  /** The raw item, deleted posts included. */
  item(postId: string): Promise<Record<string, unknown> | undefined>;
  post(postId: string): Promise<Post>;
  /** What the publish worker's claim does: the post is being sent from now on. */
  claim(postId: string): Promise<void>;
  /** What the worker does when the platform accepted the post. */
  publish(postId: string): Promise<Post | null>;
  fail(postId: string): Promise<Post | null>;
  allowanceUsed(userId: string, at?: Date): Promise<number>;
  close(): void;
}

export function postsBackdoor(stack: TestStack): PostsBackdoor {
  const raw = dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' });
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const { tables } = stack.info;
  const store = new DynamoDbPostStore({ client, postsTable: tables.posts, countersTable: tables.counters, idempotencyTable: tables.idempotency });
  const outcomes = new DynamoDbPublishState({ client, postsTable: tables.posts });
  const post = async (postId: string): Promise<Post> => {
    const found = await store.getPost(postId);
    if (!found) throw new Error(`no post ${postId}`);
    return found;
  };
  return {
    store,
    item: async (postId) => (await client.send(new GetCommand({ TableName: tables.posts, Key: { id: postId } }))).Item,
    post,
    claim: async (postId) => {
      await client.send(
        new UpdateCommand({
          TableName: tables.posts,
          Key: { id: postId },
          UpdateExpression: 'SET inFlightSince = if_not_exists(inFlightSince, :now)',
          ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':now': new Date().toISOString(), ':scheduled': 'scheduled' },
        }),
      );
    },
    publish: async (postId) => {
      const now = new Date();
      return outcomes.recordPublished(
        await post(postId),
        { publishedAt: now.toISOString(), publishedUrl: `https://x.com/someone/status/${now.getTime()}`, platformPostId: String(now.getTime()) },
        now,
      );
    },
    fail: async (postId) => outcomes.recordFailed(await post(postId), { message: 'The platform refused the post.', advice: 'Shorten the text.' }, new Date()),
    allowanceUsed: async (userId, at = new Date()) => {
      const out = await client.send(new GetCommand({ TableName: tables.counters, Key: allowanceCounterKey(userId, at.toISOString().slice(0, 7)) }));
      return typeof out.Item?.used === 'number' ? out.Item.used : 0;
    },
    close: () => raw.destroy(),
  };
}

export function minutesFromNow(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}
