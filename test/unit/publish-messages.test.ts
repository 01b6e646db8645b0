/**
 * The publish queue's message bodies as the worker reads them (lib/dispatch/messages.ts): a group
 * of posts due at one second (issue 23) is read as its posts with its lead; a group a worker would
 * not have written (too many posts, a lead out of bounds, ids that are not strings) is dropped, so
 * a forged body cannot make a worker hold more posts, or hold them longer, than it would.
 */
import { describe, expect, it } from 'vitest';
import { parsePublishEntries, publishGroupMessage, publishMessage } from '../../lib/dispatch/messages.js';
import { MAX_GROUP_POSTS, MAX_PREPARE_WINDOW_MS, PREPARE_WINDOW_MS } from '../../lib/domain/publishing.js';

const due = '2026-11-21T09:00:00.000Z';
const ids = (count: number) => Array.from({ length: count }, (_, index) => `post_${index}`);

describe('parsePublishEntries', () => {
  it('a publish message: its post, without a lead', () => {
    expect(parsePublishEntries(JSON.stringify(publishMessage('post_1', due)))).toEqual([{ postId: 'post_1', scheduledFor: due }]);
  });

  it('a group: each of its posts (once) with the group\'s lead, or without one when still to be counted', () => {
    expect(parsePublishEntries(JSON.stringify(publishGroupMessage(['post_1', 'post_2', 'post_1'], due, 5_000)))).toEqual([
      { postId: 'post_1', scheduledFor: due, prepareMs: 5_000 },
      { postId: 'post_2', scheduledFor: due, prepareMs: 5_000 },
    ]);
    expect(parsePublishEntries(JSON.stringify(publishGroupMessage(['post_1'], due)))).toEqual([{ postId: 'post_1', scheduledFor: due }]);
  });

  it('drops a group a worker would not write', () => {
    const group = (fields: Record<string, unknown>) => JSON.stringify({ kind: 'publish-group', postIds: ['post_1'], scheduledFor: due, prepareMs: 5_000, ...fields });
    expect(parsePublishEntries(group({ postIds: ids(MAX_GROUP_POSTS) }))).toHaveLength(MAX_GROUP_POSTS);
    for (const bad of [
      { postIds: ids(MAX_GROUP_POSTS + 1) },
      { postIds: [] },
      { postIds: [42] },
      { postIds: ['x'.repeat(101)] },
      { postIds: 'post_1' },
      { prepareMs: PREPARE_WINDOW_MS - 1 },
      { prepareMs: MAX_PREPARE_WINDOW_MS + 1 },
      { prepareMs: 2_500.5 },
      { prepareMs: '5000' },
      { scheduledFor: 'tomorrow' },
    ]) {
      expect(parsePublishEntries(group(bad)), JSON.stringify(bad)).toBeNull();
    }
    expect(parsePublishEntries('not json')).toBeNull();
    expect(parsePublishEntries(JSON.stringify({ kind: 'delete-from-platform', postId: 'post_1' }))).toBeNull();
  });
});
