/**
 * The Calendar's reads (lib/use-cases/settings/calendar.ts) against a store double that records
 * each Query: one list per status, bounded by the week's end on the sort key, paged at most
 * CALENDAR_MAX_PAGES times (then the week says it may be incomplete), and only the week's posts kept.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../lib/domain/caller.js';
import type { Post } from '../../lib/domain/model.js';
import type { PostListQuery, PostPage } from '../../lib/use-cases/ports/post-store.js';
import { CALENDAR_MAX_PAGES, ReadCalendar } from '../../lib/use-cases/settings/calendar.js';
import { postFixture } from '../support/post-fixture.js';

const caller = { userId: 'usr_1' } as Caller;

function store(pages: (query: PostListQuery, index: number) => PostPage) {
  const queries: PostListQuery[] = [];
  return {
    queries,
    listPosts: async (query: PostListQuery): Promise<PostPage> => {
      queries.push(query);
      return pages(query, queries.filter((seen) => seen.status === query.status).length - 1);
    },
  };
}

const post = (id: string, status: 'scheduled' | 'published', at: string): Post =>
  postFixture({ id, userId: 'usr_1', createdAt: '2026-10-01T00:00:00.000Z', status, scheduledFor: at, publishedAt: status === 'published' ? at : null });

describe('the Calendar’s reads', () => {
  it('lists each status once, bounded by the week’s end in the person’s zone, and keeps only the week’s posts in time order', async () => {
    const posts = store((query) => ({
      posts:
        query.status === 'published'
          ? [post('b', 'published', '2026-10-25T01:30:00.000Z'), post('out', 'published', '2026-10-25T23:00:00.000Z')]
          : [post('a', 'scheduled', '2026-10-25T00:30:00.000Z'), post('early', 'scheduled', '2026-10-18T21:59:00.000Z')],
      nextKey: null,
    }));
    const view = await new ReadCalendar(posts).week(caller, '2026-10-22', 'Europe/Berlin');
    expect(posts.queries.map((query) => [query.status, query.createdBefore, query.userId])).toEqual([
      ['scheduled', '2026-10-25T23:00:00.000Z', 'usr_1'],
      ['published', '2026-10-25T23:00:00.000Z', 'usr_1'],
    ]);
    expect(view.posts.map((entry) => entry.post.id)).toEqual(['a', 'b']);
    expect(view.truncated).toBe(false);
  });

  it(`stops after ${CALENDAR_MAX_PAGES} pages of a status and says the week may be incomplete`, async () => {
    const posts = store((query, index) => ({ posts: [post(`${query.status}-${index}`, query.status as 'scheduled', '2026-10-20T10:00:00.000Z')], nextKey: { id: `k${index}` } }));
    const view = await new ReadCalendar(posts).week(caller, '2026-10-22', 'UTC');
    expect(posts.queries.filter((query) => query.status === 'scheduled')).toHaveLength(CALENDAR_MAX_PAGES);
    expect(posts.queries.filter((query) => query.status === 'published')).toHaveLength(CALENDAR_MAX_PAGES);
    // Each page after the first starts where the last ended.
    expect(posts.queries.filter((query) => query.status === 'scheduled').map((query) => query.startKey)).toEqual([null, { id: 'k0' }, { id: 'k1' }, { id: 'k2' }, { id: 'k3' }]);
    expect(view.truncated).toBe(true);
    expect(view.posts).toHaveLength(2 * CALENDAR_MAX_PAGES);
  });
});
