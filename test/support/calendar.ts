/**
 * Helpers for the Calendar tests: posts placed in any week (the API only schedules 30 days ahead,
 * and the weeks worth testing are the ones whose clocks change), and a signed-in settings session
 * without a browser, as the sign-in callback leaves it (the sign-in itself: test/browser).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { PUBLISHABLE_PLATFORMS, type Post, type PublishablePlatform } from '../../lib/domain/model.js';
import { documentClient } from '../../lib/store/dynamo-client.js';
import { postToItem } from '../../lib/store/post-item.js';
import { postFixture } from './post-fixture.js';
import type { ProvisionedUser } from './provision.js';
import type { TestStack } from './stack.js';

/**
 * A scheduled or published post of `user`'s first account at `at`, created a day before. A
 * scheduled one carries no due-index keys, so the stack's sweeper never tries to send it whatever
 * day the suite runs on: it is only there to be shown.
 */
export async function placePost(stack: TestStack, user: ProvisionedUser, status: 'scheduled' | 'published', at: string, text: string): Promise<Post> {
  const account = user.accounts[0];
  if (!account) throw new Error('placePost: the user has no account');
  const platform = PUBLISHABLE_PLATFORMS.find((name: PublishablePlatform) => name === account.platform);
  if (!platform) throw new Error(`placePost: ${account.platform} is not a platform posts go to`);
  const createdAt = new Date(Date.parse(at) - 86_400_000).toISOString();
  const post = postFixture({
    id: `post_${randomBytes(10).toString('hex')}`,
    userId: user.userId,
    createdAt,
    workspaceId: account.workspaceId,
    accountId: account.id,
    platform,
    status,
    text,
    scheduledFor: at,
    ...(status === 'published' ? { publishedAt: at, publishedUrl: `https://x.com/someone/status/${Date.parse(at)}`, platformPostId: String(Date.parse(at)) } : {}),
  });
  const { duePk: _duePk, dueSk: _dueSk, ...item } = postToItem(post);
  await documentClient.send(new PutCommand({ TableName: stack.tables.posts, Item: item }));
  return post;
}

