/**
 * GET /posts (scope `read`): the caller's posts across every workspace they own, newest first,
 * optionally of one status, in pages of `limit` (1-100, default 25) chained by a signed cursor.
 * One Query per page on byUser or byUserStatus; deleted posts are not in those indexes, so every
 * page but the last is full.
 */
import { decodeCursor, encodeCursor, refusedPageKey, type CursorScope } from '../domain/cursor.js';
import { ApiError } from '../domain/errors.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import { POST_STATUSES, type PostStatus } from '../domain/model.js';
import { postView, type PostView } from '../domain/views/post-view.js';
import type { Caller } from '../domain/caller.js';
import type { PostMetricsStore } from './ports/post-metrics-store.js';
import type { PostPageKey, PostStore } from './ports/post-store.js';
import { withLatestMetrics } from './post-lookup.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
const ALLOWED_PARAMETERS = ['status', 'limit', 'cursor'] as const;

export interface ListPostsQuery {
  status: PostStatus | null;
  limit: number;
  cursor: string | null;
}

export interface PostList {
  object: 'list';
  posts: PostView[];
  nextCursor: string | null;
}

export function parseListPostsQuery(query: Record<string, string>): ListPostsQuery {
  checkQueryParameters(query, ALLOWED_PARAMETERS, 'GET /posts accepts status, limit and cursor.');
  const { status, limit, cursor } = query;
  if (status !== undefined && !(POST_STATUSES as readonly string[]).includes(status)) {
    throw new ApiError('invalid_status', `status must be one of ${POST_STATUSES.join(', ')}.`, { param: 'status' });
  }
  let pageSize = DEFAULT_PAGE_SIZE;
  if (limit !== undefined) {
    // Digits only: "10.5", "1e2", " 10" and "" are not whole numbers as written.
    pageSize = /^[0-9]{1,3}$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)) {
      throw new ApiError('invalid_limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`, { param: 'limit' });
    }
  }
  return { status: (status as PostStatus | undefined) ?? null, limit: pageSize, cursor: cursor ?? null };
}

export class ListPosts {
  constructor(private readonly deps: { posts: PostStore; metrics: Pick<PostMetricsStore, 'latestMetrics'>; cursorSigningKey: () => Promise<string> }) {}

  async execute(caller: Caller, query: ListPostsQuery): Promise<PostList> {
    const scope: CursorScope = { userId: caller.userId, status: query.status };
    const signingKey = await this.deps.cursorSigningKey();
    const startKey: PostPageKey | null = query.cursor === null ? null : decodeCursor(query.cursor, scope, signingKey);
    try {
      const page = await this.deps.posts.listPosts({ userId: caller.userId, status: query.status, limit: query.limit, startKey });
      // The Query is keyed by the caller's id; checking again keeps a mis-indexed item from crossing tenants.
      const posts = page.posts.filter((post) => post.userId === caller.userId && post.deletedAt === null);
      // Only a published post has metrics: a page without one reads nothing more.
      const latest = await this.deps.metrics.latestMetrics(posts.filter((post) => post.status === 'published').map((post) => post.id));
      return {
        object: 'list',
        posts: posts.map((post) => postView(withLatestMetrics(post, latest))),
        nextCursor: page.nextKey === null ? null : encodeCursor(scope, page.nextKey, signingKey),
      };
    } catch (error) {
      throw refusedPageKey(error) ?? error;
    }
  }
}
