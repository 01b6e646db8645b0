/**
 * Fills the posts table fast for the scale measurement: real post items (lib/store/post-item.ts,
 * the mapping every writer of posts uses), written with BatchWriteItem straight into DynamoDB
 * Local, several batches in flight. Most belong to other users; their statuses are the ones an
 * old table is full of (published, some failed and drafts). None is scheduled: the sweeper would
 * otherwise start publishing the seed.
 */
import { BatchWriteItemCommand, type DynamoDBClient, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Post, PostStatus, PublishablePlatform } from '../lib/domain/model.js';
import { newId } from '../lib/domain/ids.js';
import { postToItem } from '../lib/store/post-item.js';

export interface SeedOwner {
  userId: string;
  workspaceId: string;
  accountIds: string[];
}

const BATCH = 25;

function statusFor(index: number): PostStatus {
  const slot = index % 20;
  if (slot === 0) return 'failed';
  if (slot < 4) return 'draft';
  return 'published';
}

/** A post as the service would have stored it, created `ageMs` ago. */
export function seedPost(owner: SeedOwner, index: number, now: number): Post {
  const platform: PublishablePlatform = index % 2 === 0 ? 'x' : 'linkedin';
  const status = statusFor(index);
  // Spread over the last 30 days, so list pages cut through a long history.
  const created = new Date(now - ((index * 7_919) % (30 * 86_400_000)) - 60_000).toISOString();
  const id = newId('post');
  const published = status === 'published';
  return {
    id,
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    accountId: owner.accountIds[index % owner.accountIds.length] ?? 'acct_missing',
    platform,
    campaignId: newId('cmp'),
    status,
    text: `Seeded post ${index}: a realistic length of text for a social post, with a link https://example.com/a/${index} and a few words more.`,
    mediaUrls: [],
    mediaIds: [],
    options: {},
    format: 'text',
    threadParts: [],
    firstComment: null,
    scheduledFor: created,
    publishedAt: published ? created : null,
    publishedUrl: published ? (platform === 'x' ? `https://x.com/i/web/status/1${index}` : `https://www.linkedin.com/feed/update/urn:li:share:7${index}`) : null,
    platformPostId: published ? `1${index}` : null,
    error: status === 'failed' ? { message: 'The platform refused the post.', advice: 'Shorten the text and create the post again.' } : null,
    createdAt: created,
    updatedAt: created,
    deletedAt: null,
    allowanceCycle: status === 'draft' ? null : created.slice(0, 7),
    deleteFromPlatformRequested: false,
  };
}

/** Writes `count` posts spread over `owners` (round robin), `concurrency` batches at a time. */
export async function seedPosts(
  client: DynamoDBClient,
  table: string,
  owners: readonly SeedOwner[],
  count: number,
  options: { concurrency?: number; startIndex?: number } = {},
): Promise<void> {
  const now = Date.now();
  const start = options.startIndex ?? 0;
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < count) {
      const from = next;
      next = Math.min(count, next + BATCH);
      let requests: WriteRequest[] = [];
      for (let i = from; i < next; i++) {
        const index = start + i;
        const owner = owners[index % owners.length];
        if (!owner) throw new Error('seedPosts needs at least one owner');
        requests.push({ PutRequest: { Item: marshall(postToItem(seedPost(owner, index, now)), { removeUndefinedValues: true }) } });
      }
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 20) throw new Error('DynamoDB Local kept items unprocessed');
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
        requests = out.UnprocessedItems?.[table] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 12 }, writer));
}
