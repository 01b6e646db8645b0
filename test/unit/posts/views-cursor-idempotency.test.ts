import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowanceCycle, unitsThatFit } from '../../../lib/domain/allowance.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../../../lib/domain/cursor.js';
import { bodyHash, canonicalJson, parseIdempotencyKey } from '../../../lib/domain/idempotency.js';
import type { Post } from '../../../lib/domain/model.js';
import { DELETION_RESEND_MAX_INTERVAL_MS, deletionResendIntervalMs, planDeletion } from '../../../lib/domain/post-deletion.js';
import { postView } from '../../../lib/domain/views/post-view.js';
import { postFixture } from '../../support/post-fixture.js';

const basePost: Post = postFixture({
  id: 'post_00000000000000000001',
  userId: 'usr_1',
  options: { communityId: '1' },
  scheduledFor: '2026-11-21T10:30:00+01:00',
  createdAt: '2026-11-21T09:00:00.000Z',
  allowanceCycle: '2026-11',
});

describe('postView', () => {
  it('shows the public fields only, timestamps in UTC with ms, unset ones null', () => {
    const view = postView({ ...basePost, error: { message: 'm', advice: 'a', code: 'internal' } as Post['error'] });
    expect(view).toEqual({
      object: 'post',
      id: basePost.id,
      workspaceId: 'ws_1',
      accountId: 'acct_1',
      platform: 'x',
      campaignId: 'cmp_1',
      status: 'scheduled',
      text: 'hello',
      mediaUrls: [],
      metrics: null,
      scheduledFor: '2026-11-21T09:30:00.000Z',
      publishedAt: null,
      publishedUrl: null,
      platformPostId: null,
      error: { message: 'm', advice: 'a', retryable: false },
      format: 'text',
      threadParts: [],
      firstComment: null,
      createdAt: '2026-11-21T09:00:00.000Z',
      updatedAt: '2026-11-21T09:00:00.000Z',
    });
  });

  it('shows error.retryable as decided, false when an older error has none', () => {
    expect(postView({ ...basePost, status: 'failed', error: { message: 'm', advice: 'a', retryable: true } }).error).toEqual({ message: 'm', advice: 'a', retryable: true });
    expect(postView({ ...basePost, status: 'failed', error: { message: 'm', advice: 'a' } }).error?.retryable).toBe(false);
  });

  it('shows a thread part and a first comment by their public fields only', () => {
    const view = postView({
      ...basePost,
      format: 'thread',
      threadParts: [{ text: 'two', mediaUrls: [], mediaIds: ['med_1'], platformPostId: '22', publishedUrl: 'https://x.com/a/status/22' }],
      firstComment: { text: 'link', status: 'failed', platformCommentId: null, error: { message: 'm', advice: 'a' } },
    });
    expect(view.threadParts).toEqual([{ platformPostId: '22', publishedUrl: 'https://x.com/a/status/22' }]);
    expect(view.firstComment).toEqual({ status: 'failed', platformCommentId: null, error: { message: 'm', advice: 'a', retryable: false } });
  });
});

describe('cursor', () => {
  const key = 'signing-key';
  const scope: CursorScope = { userId: 'usr_1', status: null };
  const lastKey = { id: 'post_1', listPk: 'usr_1', listSk: '2026#post_1' };

  it('round-trips for the same user and filter', () => {
    expect(decodeCursor(encodeCursor(scope, lastKey, key), scope, key)).toEqual(lastKey);
  });

  const refused = (cursor: string, as: CursorScope = scope, signingKey = key) => () => decodeCursor(cursor, as, signingKey);
  const invalid = expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' });

  it('refuses a cursor of another user, another filter, another key, or changed', () => {
    const cursor = encodeCursor(scope, lastKey, key);
    expect(refused(cursor, { userId: 'usr_2', status: null })).toThrow(invalid);
    expect(refused(cursor, { userId: 'usr_1', status: 'draft' })).toThrow(invalid);
    expect(refused(cursor, scope, 'other-key')).toThrow(invalid);
    const [version, payload, signature] = cursor.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ u: 'usr_1', s: null, k: { ...lastKey, listSk: '9999' } })).toString('base64url');
    expect(refused(`${version}.${forged}.${signature}`)).toThrow(invalid);
    expect(refused(`${version}.${payload}.${signature.slice(1)}`)).toThrow(invalid);
    expect(refused(`v2.${payload}.${signature}`)).toThrow(invalid);
    for (const garbage of ['', 'abc', '...', 'v1..', 'x'.repeat(5000)]) expect(refused(garbage)).toThrow(invalid);
  });
});

describe('idempotency rules', () => {
  it('canonical JSON ignores key order and white space, not values', () => {
    const a = JSON.parse('{"b": [1, {"y": 2, "x": 1}], "a": "s"}') as unknown;
    const b = JSON.parse('{"a":"s","b":[1,{"x":1,"y":2}]}') as unknown;
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(bodyHash(a)).toBe(bodyHash(b));
    expect(bodyHash({ a: [1, 2] })).not.toBe(bodyHash({ a: [2, 1] }));
    expect(bodyHash({ a: 1 })).not.toBe(bodyHash({ a: '1' }));
    expect(bodyHash(JSON.parse('{"a": 1.0}'))).toBe(bodyHash({ a: 1 }));
  });

  it('canonical JSON is the same string as the plain recursive definition, for any JSON value', () => {
    // The definition the iterative version replaced: same output wherever the recursion fits the stack.
    const recursive = (value: unknown): string => {
      if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
      if (Array.isArray(value)) return `[${value.map(recursive).join(',')}]`;
      const entries = Object.keys(value)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${recursive((value as Record<string, unknown>)[key])}`);
      return `{${entries.join(',')}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(recursive(value));
      }),
      { numRuns: 500 },
    );
  });

  it('hashes a body nested as deep as the 256 KiB limit allows without overflowing the stack', () => {
    const depth = 128 * 1024;
    const arrays = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
    expect(bodyHash(arrays)).toMatch(/^[0-9a-f]{64}$/);
    const objects = JSON.parse(`${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`) as unknown;
    expect(canonicalJson(objects)).toBe(`${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`);
  });

  it('parses the Idempotency-Key header', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(parseIdempotencyKey('order-42')).toBe('order-42');
    for (const bad of ['', 'a b', 'x'.repeat(256), 'é']) {
      expect(() => parseIdempotencyKey(bad)).toThrow(expect.objectContaining({ code: 'invalid_idempotency_key' }));
    }
  });
});

describe('allowance', () => {
  it('cycles by UTC calendar month and fits the first k', () => {
    expect(allowanceCycle(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(allowanceCycle(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
    expect(unitsThatFit(5, 8, 10)).toBe(2);
    expect(unitsThatFit(5, 12, 10)).toBe(0);
    expect(unitsThatFit(3, 0, 10)).toBe(3);
  });
});

describe('planDeletion', () => {
  it('removes drafts, failed and unclaimed scheduled posts; refunds only the scheduled one', () => {
    expect(planDeletion({ ...basePost, status: 'draft', allowanceCycle: null }, true)).toMatchObject({
      kind: 'remove',
      refundCycle: null,
      softDeleted: false,
      platformDeletionQueuedFor: [],
    });
    expect(planDeletion({ ...basePost, status: 'failed' }, false)).toMatchObject({ kind: 'remove', refundCycle: null, cancelSchedule: false });
    expect(planDeletion(basePost, true)).toMatchObject({ kind: 'remove', refundCycle: '2026-11', cancelSchedule: true, softDeleted: false });
  });

  it('soft-deletes published and claimed posts; queues only a published one', () => {
    const published = { ...basePost, status: 'published' as const, platformPostId: '1', publishedUrl: 'u', publishedAt: basePost.createdAt };
    expect(planDeletion(published, false)).toMatchObject({ kind: 'soft-delete', softDeleted: true, queuePlatformDeletion: false, platformDeletionQueuedFor: [] });
    expect(planDeletion(published, true)).toMatchObject({ queuePlatformDeletion: true, recordDeleteFromPlatform: true, platformDeletionQueuedFor: ['x'] });
    const sending = { ...basePost, inFlightSince: '2026-11-21T09:30:00.000Z' };
    expect(planDeletion(sending, true)).toMatchObject({
      kind: 'soft-delete',
      queuePlatformDeletion: false,
      recordDeleteFromPlatform: true,
      platformDeletionQueuedFor: ['x'],
    });
  });
});

describe('deletionResendIntervalMs (a pending platform deletion queued again)', () => {
  const since = '2026-01-01T00:00:00.000Z';
  const after = (ms: number) => new Date(Date.parse(since) + ms);

  it('waits the usual interval at first, a tenth of the time pending later, and at most an hour', () => {
    expect(deletionResendIntervalMs(since, after(30_000), 60_000)).toBe(60_000);
    expect(deletionResendIntervalMs(since, after(10 * 60_000), 60_000)).toBe(60_000);
    expect(deletionResendIntervalMs(since, after(2 * 3_600_000), 60_000)).toBe(12 * 60_000);
    expect(deletionResendIntervalMs(since, after(3 * 24 * 3_600_000), 60_000)).toBe(DELETION_RESEND_MAX_INTERVAL_MS);
  });

  it('asks a platform that fails for a week about 200 times, not 10,000', () => {
    let asks = 0;
    for (let at = 0; at < 7 * 24 * 3_600_000; at += deletionResendIntervalMs(since, after(at), 60_000)) asks++;
    expect(asks).toBeGreaterThan(150);
    expect(asks).toBeLessThan(250);
  });
});
