/**
 * A post as the stores hold it, for tests that need one without going through POST /posts: a
 * scheduled text post of account acct_1 on x, nothing happened to it yet. Fields given replace
 * the defaults; scheduledFor and updatedAt default to createdAt.
 */
import type { Post } from '../../lib/domain/model.js';

export function postFixture(fields: Pick<Post, 'id' | 'userId' | 'createdAt'> & Partial<Post>): Post {
  const { id, userId, createdAt, ...rest } = fields;
  // Every field listed in the model's order first, so the fields given keep that order too.
  return {
    id,
    userId,
    workspaceId: 'ws_1',
    accountId: 'acct_1',
    platform: 'x',
    campaignId: 'cmp_1',
    status: 'scheduled',
    text: 'hello',
    mediaUrls: [],
    mediaIds: [],
    options: {},
    format: 'text',
    threadParts: [],
    firstComment: null,
    scheduledFor: createdAt,
    publishedAt: null,
    publishedUrl: null,
    platformPostId: null,
    error: null,
    createdAt,
    updatedAt: createdAt,
    deletedAt: null,
    allowanceCycle: null,
    deleteFromPlatformRequested: false,
    ...rest,
  };
}
