/**
 * Events you can read back (beyond-v2.md; lib/use-cases/events.ts), through the SDK against the
 * local stack with its stream pollers (the webhook router), the publish and delivery workers and
 * the sandbox platforms: every post's event is recorded also for a customer without an endpoint,
 * newest first, across pages (the SDK's auto-pagination), filtered by type or group, with the same
 * ids as the webhooks' `webhook-id`; another customer's event is not found. Every response the SDK
 * reads is checked against openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError, SocialPublishing, type Event } from '../../sdk/src/index.js';
import { documentedFetch } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

let stack: TestStack;
const mismatches: string[] = [];

function sdkFor(user: ProvisionedUser): SocialPublishing {
  return new SocialPublishing({ baseUrl: stack.baseUrl, apiKey: user.apiKey, fetch: documentedFetch(stack.baseUrl, mismatches) });
}

beforeAll(async () => {
  stack = await startPostsStack({ consumers: ['PublishWorker', 'WebhookDeliveryWorker'], streams: true, sandbox: true });
});

afterAll(async () => {
  await stack?.stop();
  expect(mismatches).toEqual([]);
});

/** Posts created and published, each with its own text. */
async function published(sdk: SocialPublishing, accountId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const batch = await sdk.posts.create({ accounts: [accountId], text: `event ${index} ${Math.random().toString(36).slice(2, 8)}` });
    ids.push(batch.posts[0]!.id!);
  }
  for (const id of ids) expect((await sdk.posts.waitForOutcome(id, { timeoutMs: 30_000 })).status).toBe('published');
  return ids;
}

/** Every event of the list, through the SDK's auto-pagination, once `ready` holds of them (the router runs apart). */
async function eventsWhen(list: () => AsyncIterable<Event>, ready: (events: Event[]) => boolean): Promise<Event[]> {
  let events: Event[] = [];
  await expect
    .poll(
      async () => {
        events = [];
        for await (const event of list()) events.push(event);
        return ready(events);
      },
      { timeout: 30_000, interval: 300 },
    )
    .toBe(true);
  return events;
}

describe('GET /events', () => {
  it("records every post's event for a customer without an endpoint, newest first, across pages, by type and group", async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const sdk = sdkFor(user);
    const posts = await published(sdk, user.accounts[0]!.id, 3);
    const isPublishedPost = (event: Event) => event.type === 'post.published' && posts.includes(event.data.object.id);
    // One event per page: the SDK follows nextCursor to the end.
    const all = await eventsWhen(() => sdk.events.list({ limit: 1 }), (events) => events.filter(isPublishedPost).length === 3);
    const times = all.map((event) => event.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(all.map((event) => event.id)).size).toBe(all.length);
    // The account's own event is recorded too (its connection), and filtered out by a group.
    expect(all.some((event) => event.type === 'account.connected')).toBe(true);
    const postsOnly = await eventsWhen(() => sdk.events.list({ type: 'post.*', limit: 2 }), (events) => events.length === 3);
    expect(postsOnly.map((event) => event.id)).toEqual(all.filter((event) => event.type.startsWith('post.')).map((event) => event.id));
    expect((await sdk.events.list({ type: 'post.published' })).events.map((event) => event.id)).toEqual(postsOnly.map((event) => event.id));
    expect((await sdk.events.list({ type: 'post.failed' })).events).toEqual([]);

    // One event by id, exactly as listed; another customer's is not found, as a missing one.
    const [newest] = postsOnly;
    expect(await sdk.events.get(newest!.id)).toEqual(newest);
    const other = sdkFor(await provisionUser());
    const hidden = await other.events.get(newest!.id).catch((error: unknown) => error);
    expect(hidden).toBeInstanceOf(InvalidRequestError);
    expect(hidden).toMatchObject({ status: 404, code: 'event_not_found' });
    expect((await other.events.list()).events).toEqual([]);
  });

  it('gives the same ids as the webhooks: a receiver catches up on what it missed', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const sdk = sdkFor(user);
    const hook = await startWebhookReceiver();
    try {
      await sdk.webhookEndpoints.create({ url: hook.url, enabledEvents: ['post.published'] });
      const [id] = await published(sdk, user.accounts[0]!.id, 1);
      const received = await hook.waitFor((all) => all.some((delivery) => delivery.json?.type === 'post.published'));
      const delivery = received.find((one) => one.json?.type === 'post.published')!;
      const event = await sdk.events.get(delivery.headers['webhook-id'] as string);
      expect(event).toEqual(delivery.json);
      expect(event.type === 'post.published' && event.data.object.id).toBe(id);
    } finally {
      await hook.stop();
    }
  });

  it('refuses a bad filter, limit or cursor with the contract\'s error', async () => {
    const sdk = sdkFor(await provisionUser());
    for (const [params, code] of [
      [{ type: 'nope' }, 'invalid_event_type'],
      [{ type: 'nope.*' }, 'invalid_event_type'],
      [{ limit: 0 }, 'invalid_limit'],
      [{ limit: 101 }, 'invalid_limit'],
      [{ cursor: 'v1.x.y' }, 'invalid_cursor'],
    ] as const) {
      const error = await Promise.resolve(sdk.events.list(params as never)).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(params)).toMatchObject({ status: 400, code });
    }
    expect(await sdk.events.get('evt_nothere').catch((error: unknown) => error)).toMatchObject({ status: 404, code: 'event_not_found' });
  });
});
