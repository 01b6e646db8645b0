/**
 * The crash test's webhook check (chaos/verify.ts checkWebhooks) and its receiver
 * (chaos/receiver.ts): a lost or invented event must fail a cycle, so the check itself is tested
 * on made-up records, and the receiver against real signed requests.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { BurstState, KnownPost } from '../../chaos/burst.js';
import { FlakyReceiver, type ReceivedRequest } from '../../chaos/receiver.js';
import { checkEventsReadable, checkWebhooks } from '../../chaos/verify.js';

function post(id: string, deletion: KnownPost['deletion'] = null): KnownPost {
  return { id, accountId: 'acc_1', platform: 'x', sandbox: 'ok', text: `text ${id}`, withMedia: false, accepted: true, orphan: false, thread: null, deletion };
}

function stateOf(posts: KnownPost[]): BurstState {
  return { creates: [], posts: new Map(posts.map((entry) => [entry.id, entry])), pendingDeletes: [], problems: [] };
}

function request(webhookId: string, type: string, postId: string, objectStatus: string, answer: ReceivedRequest['answer'] = 'accepted', verified = true): ReceivedRequest {
  return { at: 1_000, webhookId, type, postId, objectStatus, verified, answer };
}

describe('checkWebhooks', () => {
  const state = stateOf([post('p1'), post('p2'), post('p3', { deleteFromPlatform: false, outcome: 'cancelled' })]);
  const finals = new Map([
    ['p1', { status: 'published' }],
    ['p2', { status: 'failed' }],
    ['p3', { status: 'scheduled' }],
  ]);
  const expected = new Map([
    ['p1', 'post.published'],
    ['p2', 'post.failed'],
  ] as const);

  it('passes every expected event accepted once with a verified signature, and counts deliveries per event', () => {
    const check = checkWebhooks({
      state,
      expected,
      finals,
      readyAt: 0,
      killedAt: 500,
      requests: [request('evt_1', 'post.published', 'p1', 'published', 'error_500'), request('evt_1', 'post.published', 'p1', 'published'), request('evt_2', 'post.failed', 'p2', 'failed')],
    });
    expect(check).toMatchObject({ expected: 2, delivered: 2, missing: 0, invented: 0, unverified: 0, requests: 3, refusedByReceiver: 1, deliveriesPerEvent: { mean: 1.5, max: 2 } });
    expect(check.problems).toEqual([]);
  });

  it('names the events the kill met: seen before it, accepted only after the restart', () => {
    const check = checkWebhooks({
      state,
      expected,
      finals,
      readyAt: 0,
      killedAt: 500,
      requests: [
        { ...request('evt_1', 'post.published', 'p1', 'published', 'error_500'), at: 100 },
        request('evt_1', 'post.published', 'p1', 'published'),
        { ...request('evt_2', 'post.failed', 'p2', 'failed'), at: 200 },
      ],
    });
    expect(check).toMatchObject({ delivered: 2, seenBeforeKill: 2, acrossKill: 1 });
  });

  it('counts an event only refused, or accepted with a bad signature, as missing', () => {
    const check = checkWebhooks({
      state,
      expected,
      finals,
      readyAt: 0,
      killedAt: 500,
      requests: [request('evt_1', 'post.published', 'p1', 'published', 'dropped'), request('evt_2', 'post.failed', 'p2', 'failed', 'accepted', false)],
    });
    expect(check).toMatchObject({ delivered: 0, missing: 2, unverified: 1 });
  });

  it('counts as invented: a state the post never reached, a wrong object status, a cancelled post, an unknown post, a second event for one change', () => {
    const check = checkWebhooks({
      state,
      expected,
      finals,
      readyAt: 0,
      killedAt: 500,
      requests: [
        request('evt_1', 'post.published', 'p1', 'published'),
        request('evt_2', 'post.failed', 'p2', 'failed'),
        request('evt_3', 'post.published', 'p2', 'published'),
        request('evt_4', 'post.failed', 'p1', 'published'),
        request('evt_5', 'post.published', 'p3', 'published'),
        request('evt_6', 'post.published', 'p_unknown', 'published'),
        request('evt_7', 'post.published', 'p1', 'published'),
      ],
    });
    expect(check.missing).toBe(0);
    expect(check.invented).toBe(5);
    expect(check.problems.join('\n')).toMatch(/evt_3.*the post is failed/);
    expect(check.problems.join('\n')).toMatch(/evt_5.*a cancelled post/);
    expect(check.problems.join('\n')).toMatch(/evt_6.*does not have/);
    expect(check.problems.join('\n')).toMatch(/evt_7.*a second event for one change/);
  });
});

describe('FlakyReceiver', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const send = async (receiver: FlakyReceiver, id: string, signWith: string): Promise<number | 'dropped'> => {
    const body = JSON.stringify({ id, object: 'event', type: 'post.published', createdAt: new Date().toISOString(), data: { object: { id: 'p1', status: 'published' } } });
    const timestamp = new Date();
    const signature = new Webhook(signWith).sign(id, timestamp, body);
    try {
      const response = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signature },
        body,
      });
      return response.status;
    } catch {
      return 'dropped';
    }
  };

  it('refuses the first arrival of an event when its draw says so, accepts the next, and verifies signatures with standardwebhooks', async () => {
    // Draws: 0.1 (< 0.4: a 500), then anything (a second arrival is accepted), then 0.9 (accepted at once).
    const draws = [0.1, 0.1, 0.9, 0.9];
    const receiver = new FlakyReceiver(() => draws.shift() ?? 0.9);
    receiver.useSecret(secret);
    await receiver.up();
    try {
      expect(await send(receiver, 'evt_a', secret)).toBe(500);
      expect(await send(receiver, 'evt_a', secret)).toBe(204);
      expect(await send(receiver, 'evt_b', secret)).toBe(204);
      expect(await send(receiver, 'evt_c', `whsec_${Buffer.alloc(32, 9).toString('base64')}`)).toBe(204);
      expect(receiver.requests.map((entry) => [entry.webhookId, entry.answer, entry.verified])).toEqual([
        ['evt_a', 'error_500', true],
        ['evt_a', 'accepted', true],
        ['evt_b', 'accepted', true],
        ['evt_c', 'accepted', false],
      ]);
    } finally {
      await receiver.down();
    }
  });

  it('drops the connection for the other half of its refusals, refuses connections while down, and listens on the same port again', async () => {
    const receiver = new FlakyReceiver(() => 0.5);
    receiver.useSecret(secret);
    await receiver.up();
    const url = receiver.url;
    try {
      expect(await send(receiver, 'evt_d', secret)).toBe('dropped');
      await receiver.down();
      expect(await send(receiver, 'evt_d', secret)).toBe('dropped');
      await receiver.up();
      expect(receiver.url).toBe(url);
      // 0.5 is a refusal only on a first arrival: evt_d's was the dropped one.
      expect(await send(receiver, 'evt_d', secret)).toBe(204);
      expect(receiver.requests.map((entry) => entry.answer)).toEqual(['dropped', 'accepted']);
    } finally {
      await receiver.down();
    }
  });
});

describe('checkEventsReadable', () => {
  const event = (id: string, type: string, postId: string) => ({ id, type, data: { object: { id: postId } } });

  it('passes when every settled post has its event, and names each one missing or listed twice', () => {
    const expected = new Map([
      ['post_a', 'post.published'],
      ['post_b', 'post.failed'],
      ['post_c', 'post.published'],
    ] as const);
    expect(checkEventsReadable(expected, [event('evt_1', 'post.published', 'post_a'), event('evt_2', 'post.failed', 'post_b'), event('evt_3', 'post.published', 'post_c')])).toEqual([]);
    const problems = checkEventsReadable(expected, [
      event('evt_1', 'post.published', 'post_a'),
      event('evt_9', 'post.published', 'post_a'),
      event('evt_2', 'post.published', 'post_b'),
    ]);
    expect(problems).toEqual([
      'event post.published of post_a listed under 2 ids: evt_1, evt_9',
      'event post.failed of post_b not readable through GET /events',
      'event post.published of post_c not readable through GET /events',
    ]);
  });
});

