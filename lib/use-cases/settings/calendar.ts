/**
 * The settings Calendar (beyond-v2.md "Queues and time zones"): one week of the signed-in person's
 * scheduled and published posts, in their time zone.
 *
 * Reads are Queries of the posts' byUserStatus index (the status filter of GET /posts), one per
 * status, bounded by the week's end on the index's sort key (a post is created before it is due or
 * published, so nothing created after the week can fall in it). The index is ordered by creation,
 * not by due time, so each status is paged back at most MAX_PAGES pages; past that the week says
 * it may be incomplete rather than read without end.
 */
import { calendarWeek, type CalendarWeek } from '../../domain/local-time.js';
import type { Caller } from '../../domain/caller.js';
import type { Post } from '../../domain/model.js';
import type { PostPageKey, PostStore } from '../ports/post-store.js';

const PAGE_SIZE = 100;
export const CALENDAR_MAX_PAGES = 5;
const STATUSES = ['scheduled', 'published'] as const;

export interface CalendarPost {
  post: Post;
  /** When it is due (scheduled) or went out (published), ms. */
  atMs: number;
}

export interface CalendarWeekView {
  week: CalendarWeek;
  /** Every post of the week, earliest first. */
  posts: CalendarPost[];
  /** True when a status had more posts than the pages read: the week may miss some. */
  truncated: boolean;
}

/** The instant a post sits at on the calendar. */
function instantOf(post: Post): number {
  return Date.parse(post.status === 'published' ? (post.publishedAt ?? post.scheduledFor) : post.scheduledFor);
}

export class ReadCalendar {
  constructor(private readonly posts: Pick<PostStore, 'listPosts'>) {}

  async week(caller: Caller, date: string, timeZone: string): Promise<CalendarWeekView> {
    const week = calendarWeek(date, timeZone);
    const createdBefore = new Date(week.endMs).toISOString();
    const reads = await Promise.all(STATUSES.map((status) => this.readStatus(caller.userId, status, createdBefore)));
    const posts = reads
      .flatMap((read) => read.posts)
      .map((post) => ({ post, atMs: instantOf(post) }))
      .filter(({ atMs }) => atMs >= week.startMs && atMs < week.endMs)
      .sort((a, b) => a.atMs - b.atMs || a.post.id.localeCompare(b.post.id));
    return { week, posts, truncated: reads.some((read) => read.truncated) };
  }

  private async readStatus(userId: string, status: (typeof STATUSES)[number], createdBefore: string): Promise<{ posts: Post[]; truncated: boolean }> {
    const posts: Post[] = [];
    let startKey: PostPageKey | null = null;
    for (let page = 0; page < CALENDAR_MAX_PAGES; page++) {
      const out = await this.posts.listPosts({ userId, status, limit: PAGE_SIZE, startKey, createdBefore });
      posts.push(...out.posts);
      if (!out.nextKey) return { posts, truncated: false };
      startKey = out.nextKey;
    }
    return { posts, truncated: true };
  }
}
