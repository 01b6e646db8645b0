/**
 * The crash test's thread check (chaos/verify.ts checkThreads) and the webhook check's view of a
 * thread's events: a part sent twice or a part missing must fail a cycle, so the check itself is
 * tested on made-up sandbox records.
 */
import { describe, expect, it } from 'vitest';
import { planBurst, planThreads, seededRng, threadOf, type BurstState, type KnownPost } from '../../chaos/burst.js';
import type { ChaosCustomer } from '../../chaos/provision.js';
import type { ReceivedRequest } from '../../chaos/receiver.js';
import { checkThreads, checkWebhooks, type PostView, type SandboxRecord } from '../../chaos/verify.js';

const ACCOUNT = 'acct_x_ok';

function thread(id: string, parts = 3): KnownPost {
  return {
    id,
    accountId: ACCOUNT,
    platform: 'x',
    sandbox: 'ok',
    text: `${id} part 1`,
    withMedia: false,
    accepted: true,
    orphan: false,
    thread: Array.from({ length: parts - 1 }, (_, at) => `${id} part ${at + 2}`),
    deletion: null,
  };
}

interface Held {
  id: string;
  text: string;
  inReplyTo: string | null;
  deleted?: boolean;
}

function recordOf(held: Held[]): SandboxRecord {
  const view = (post: Held) => ({ id: post.id, text: post.text, mediaIds: [], deletedAt: post.deleted ? '2026-01-01T00:00:00.000Z' : null, inReplyTo: post.inReplyTo });
  return {
    x: { accounts: { [ACCOUNT]: { live: held.filter((post) => !post.deleted).map(view), deleted: held.filter((post) => post.deleted).map(view) } } },
    linkedin: { accounts: {} },
  };
}

/** Parts 1..n of `id` on X, each answering the one before: ids `<id>-1`, `<id>-2`, ... */
function chained(id: string, parts = 3): Held[] {
  return Array.from({ length: parts }, (_, at) => ({ id: `${id}-${at + 1}`, text: `${id} part ${at + 1}`, inReplyTo: at === 0 ? null : `${id}-${at}` }));
}

function published(id: string, parts = 3): PostView {
  return {
    id,
    accountId: ACCOUNT,
    status: 'published',
    platformPostId: `${id}-1`,
    threadParts: Array.from({ length: parts - 1 }, (_, at) => ({ platformPostId: `${id}-${at + 2}` })),
    error: null,
  };
}

function failed(id: string, message: string, liveParts: number, parts = 3): PostView {
  return {
    id,
    accountId: ACCOUNT,
    status: 'failed',
    platformPostId: liveParts > 0 ? `${id}-1` : null,
    threadParts: Array.from({ length: parts - 1 }, (_, at) => ({ platformPostId: at + 2 <= liveParts ? `${id}-${at + 2}` : null })),
    error: { message, advice: 'Retry the post: it continues from the first missing part.' },
  };
}

describe('checkThreads', () => {
  it('passes a published thread whose parts are each live once, in order, with the ids it shows, and claims them', () => {
    const check = checkThreads({ posts: [thread('t1', 4)], views: new Map([['t1', published('t1', 4)]]), record: recordOf(chained('t1', 4)) });
    expect(check).toMatchObject({ threads: 1, duplicated: 0, missing: 0, problems: [] });
    expect([...check.claimed].sort()).toEqual(['t1-1', 't1-2', 't1-3', 't1-4']);
  });

  it('counts a part sent twice as duplicated: a second live answer to the same parent, or a copy since deleted', () => {
    const twiceLive = checkThreads({
      posts: [thread('t1')],
      views: new Map([['t1', published('t1')]]),
      record: recordOf([...chained('t1'), { id: 't1-2b', text: 't1 part 2', inReplyTo: 't1-1' }]),
    });
    expect(twiceLive).toMatchObject({ duplicated: 1, missing: 0 });
    expect(twiceLive.problems.join('\n')).toMatch(/part 2 of 3 is on X 2 times/);
    // Claimed, so the cycle check does not count the copy a second time as a post nobody asked for.
    expect(twiceLive.claimed.has('t1-2b')).toBe(true);

    const onceDeleted = checkThreads({
      posts: [thread('t1')],
      views: new Map([['t1', published('t1')]]),
      record: recordOf([...chained('t1'), { id: 't1-3old', text: 't1 part 3', inReplyTo: 't1-2', deleted: true }]),
    });
    expect(onceDeleted).toMatchObject({ duplicated: 1, missing: 0 });
  });

  it('counts as missing the parts of a published thread that are not live, answer the wrong part, or are not the ids it shows', () => {
    const notLive = checkThreads({ posts: [thread('t1')], views: new Map([['t1', published('t1')]]), record: recordOf(chained('t1').slice(0, 2)) });
    expect(notLive).toMatchObject({ duplicated: 0, missing: 1 });
    expect(notLive.problems.join('\n')).toMatch(/published but only parts 1-2 of 3/);

    const outOfOrder = chained('t1');
    outOfOrder[2] = { id: 't1-3', text: 't1 part 3', inReplyTo: 't1-1' };
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', published('t1')]]), record: recordOf(outOfOrder) })).toMatchObject({ missing: 1 });

    const deletedPart = chained('t1').map((held) => (held.id === 't1-2' ? { ...held, deleted: true } : held));
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', published('t1')]]), record: recordOf(deletedPart) })).toMatchObject({ missing: 2 });

    const otherIds = { ...published('t1'), threadParts: [{ platformPostId: 't1-2' }, { platformPostId: null }] };
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', otherIds]]), record: recordOf(chained('t1')) })).toMatchObject({ missing: 1 });
  });

  it('passes a failed thread that names its live parts, and counts them missing when it does not', () => {
    const record = recordOf(chained('t1').slice(0, 2));
    const named = failed('t1', 'Parts 1-2 of 3 are live on X; part 3 did not go out: X refused the post.', 2);
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', named]]), record })).toMatchObject({ duplicated: 0, missing: 0 });

    const silent = failed('t1', 'X refused the post.', 2);
    const check = checkThreads({ posts: [thread('t1')], views: new Map([['t1', silent]]), record });
    expect(check).toMatchObject({ missing: 2 });
    expect(check.problems.join('\n')).toMatch(/failed with 2 of 3 parts live, which its error does not name/);

    const one = recordOf(chained('t1').slice(0, 1));
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', failed('t1', 'Part 1 of 3 is live on X; part 2 did not go out: …', 1)]]), record: one })).toMatchObject({ missing: 0 });
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', failed('t1', 'X refused the post.', 0)]]), record: recordOf([]) })).toMatchObject({ missing: 0 });
  });

  it('counts the parts of a thread that never settled as missing, checks a deleted thread for copies only, and ignores other posts', () => {
    const open: PostView = { ...published('t1'), status: 'scheduled', threadParts: [{ platformPostId: null }, { platformPostId: null }] };
    expect(checkThreads({ posts: [thread('t1')], views: new Map([['t1', open]]), record: recordOf(chained('t1').slice(0, 1)) })).toMatchObject({ missing: 2 });

    const deleted = { ...thread('t2'), deletion: { deleteFromPlatform: true, outcome: 'soft_deleted' as const } };
    expect(checkThreads({ posts: [deleted], views: new Map(), record: recordOf(chained('t2').slice(0, 2)) })).toMatchObject({ threads: 1, missing: 0, duplicated: 0 });

    const plain: KnownPost = { ...thread('p1'), thread: null };
    expect(checkThreads({ posts: [plain], views: new Map(), record: recordOf([]) })).toMatchObject({ threads: 0, missing: 0 });
  });
});

describe('checkWebhooks with threads', () => {
  const state: BurstState = { creates: [], posts: new Map([['t1', thread('t1')]]), pendingDeletes: [], problems: [] };
  const finals = new Map([['t1', { status: 'published' }]]);
  const expected = new Map([['t1', 'post.published']] as const);
  const event = (webhookId: string, format: string | null, threadParts: (string | null)[]): ReceivedRequest => ({
    at: 1_000,
    webhookId,
    type: 'post.published',
    postId: 't1',
    objectStatus: 'published',
    format,
    threadParts,
    verified: true,
    answer: 'accepted',
  });

  it("accepts a thread's post.published carrying its format and every part live", () => {
    const check = checkWebhooks({ state, expected, finals, readyAt: 0, killedAt: 500, requests: [event('evt_1', 'thread', ['t1-2', 't1-3'])] });
    expect(check).toMatchObject({ delivered: 1, missing: 0, invented: 0 });
  });

  it('calls invented an event of a thread that is not a thread, or published with a part not live', () => {
    const notThread = checkWebhooks({ state, expected, finals, readyAt: 0, killedAt: 500, requests: [event('evt_1', 'text', [])] });
    expect(notThread.invented).toBe(1);
    const partMissing = checkWebhooks({ state, expected, finals, readyAt: 0, killedAt: 500, requests: [event('evt_1', 'thread', ['t1-2', null])] });
    expect(partMissing.invented).toBe(1);
    expect(partMissing.problems.join('\n')).toMatch(/shows 1 of 2 further parts live/);
  });
});

describe('planThreads', () => {
  const customer: ChaosCustomer = {
    userId: 'usr_1',
    apiKey: 'ak_test',
    allowance: 1000,
    accounts: [
      { id: 'acct_x_ok', platform: 'x', sandbox: 'ok' },
      { id: 'acct_x_flaky', platform: 'x', sandbox: 'flaky' },
      { id: 'acct_li_ok', platform: 'linkedin', sandbox: 'ok' },
      { id: 'acct_li_flaky', platform: 'linkedin', sandbox: 'flaky' },
    ],
    mediaUrl: 'https://media.example.com/u/usr_1/med_1/chaos.png',
  };

  it('adds X threads among the burst without changing its other creates: 3-5 parts on ok, 3 with flaky, every text and key its own', () => {
    const burst = planBurst(seededRng(7), customer, 'tag', 16);
    const planned = planThreads(seededRng(8), customer, 'tag', burst, 12);
    expect(planned).toHaveLength(28);
    expect(planned.filter((create) => threadOf(create.body) === null)).toEqual(burst);
    const threads = planned.filter((create) => threadOf(create.body) !== null);
    expect(threads).toHaveLength(12);
    for (const create of threads) {
      expect(create.body.accounts.every((id) => id.startsWith('acct_x_'))).toBe(true);
      const parts = 1 + (threadOf(create.body)?.length ?? 0);
      if (create.body.accounts.includes('acct_x_flaky')) expect(parts).toBe(3);
      else expect(parts).toBeGreaterThanOrEqual(3);
      expect(parts).toBeLessThanOrEqual(5);
    }
    const texts = threads.flatMap((create) => [create.body.text, ...(threadOf(create.body) ?? [])]);
    expect(new Set(texts).size).toBe(texts.length);
    expect(new Set(planned.map((create) => create.idempotencyKey)).size).toBe(planned.length);
  });
});
