/**
 * The pure webhook rules (lib/domain/webhooks.ts): the retry schedule, the Standard Webhooks
 * signature (checked against the `standardwebhooks` package), which events a change means, secret
 * rotation and URL rules.
 */
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Account, Post } from '../../lib/domain/model.js';
import {
  accountEvents,
  activeSecrets,
  changeEventId,
  checkEnabledEvents,
  checkWebhookUrl,
  classifyAnswer,
  MAX_DELIVERY_ATTEMPTS,
  MAX_SIGNING_SECRETS,
  newSigningSecret,
  postEvents,
  retryDelayMs,
  rotatedSecrets,
  shouldDisableForFailures,
  signedHeaders,
  SLOT_RETRY_MAX_MS,
  SLOT_RETRY_MS,
  SLOT_WAIT_MS,
  slotRetryPauseMs,
  type PostImage,
} from '../../lib/domain/webhooks.js';

describe('retry schedule', () => {
  it('retries within 10 s, three times within 5 minutes, and for more than 24 hours over at least 8 attempts', () => {
    for (const random of [0, 0.5, 0.999]) {
      const delays: number[] = [];
      for (let attempt = 1; ; attempt += 1) {
        const delay = retryDelayMs(attempt, random);
        if (delay === null) break;
        delays.push(delay);
      }
      expect(delays.length + 1).toBe(MAX_DELIVERY_ATTEMPTS);
      expect(MAX_DELIVERY_ATTEMPTS).toBeGreaterThanOrEqual(8);
      expect(delays[0]).toBeLessThanOrEqual(10_000);
      expect(delays.slice(0, 3).reduce((sum, delay) => sum + delay, 0)).toBeLessThanOrEqual(5 * 60_000);
      expect(delays.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThan(24 * 60 * 60_000);
      // Each wait is longer than the one before, or the same at the cap.
      for (let index = 1; index < delays.length; index += 1) expect(delays[index]! * 1.5).toBeGreaterThanOrEqual(delays[index - 1]!);
    }
  });

  it('jitters: two deliveries failing together do not retry at the same moment', () => {
    expect(retryDelayMs(4, 0)).not.toBe(retryDelayMs(4, 0.9));
    expect(retryDelayMs(MAX_DELIVERY_ATTEMPTS, 0.5)).toBeNull();
  });

  it('classifies answers: any 2xx succeeds, 410 disables, a 3xx is a failure (never followed)', () => {
    expect(classifyAnswer(200).kind).toBe('succeeded');
    expect(classifyAnswer(299).kind).toBe('succeeded');
    expect(classifyAnswer(410).kind).toBe('gone');
    expect(classifyAnswer(301)).toMatchObject({ kind: 'failed', error: expect.stringMatching(/redirect/) });
    expect(classifyAnswer(500).kind).toBe('failed');
  });

  it('disables after 3 days of failures only', () => {
    const now = new Date('2026-11-25T00:00:00.000Z');
    expect(shouldDisableForFailures(null, now)).toBe(false);
    expect(shouldDisableForFailures('2026-11-22T00:00:01.000Z', now)).toBe(false);
    expect(shouldDisableForFailures('2026-11-22T00:00:00.000Z', now)).toBe(true);
  });
});

describe('waiting for a busy endpoint\'s slot', () => {
  it('backs a single message off to SLOT_RETRY_MAX_MS; a batch message keeps trying every SLOT_RETRY_MS', () => {
    expect([0, 1, 2, 3, 9, 50].map((tries) => slotRetryPauseMs(tries, true, 0.5))).toEqual([100, 200, 400, 400, 400, 400]);
    expect([0, 1, 2, 3, 50].map((tries) => slotRetryPauseMs(tries, false, 0.5))).toEqual(Array(5).fill(SLOT_RETRY_MS));
    expect(slotRetryPauseMs(5, true, 0)).toBe(SLOT_RETRY_MAX_MS / 2);
    expect(slotRetryPauseMs(5, true, 0.999)).toBeLessThan(SLOT_RETRY_MAX_MS * 1.5);
  });

  it('reads the slots 5 times in a single message\'s wait at the mean jitter, 8 at most (every 100 ms: 11, up to 21)', () => {
    // As DeliverWebhook.acquireSlots does: a read, and another after each pause until the wait is over.
    const reads = (pause: (tries: number) => number): number => {
      let at = 0;
      let count = 1;
      for (let tries = 0; at < SLOT_WAIT_MS; tries += 1) {
        at += pause(tries);
        count += 1;
      }
      return count;
    };
    expect(reads((tries) => slotRetryPauseMs(tries, true, 0.5))).toBe(5);
    for (const random of [0, 0.25, 0.999]) expect(reads((tries) => slotRetryPauseMs(tries, true, random))).toBeLessThanOrEqual(8);
    expect(reads(() => SLOT_RETRY_MS)).toBe(11);
  });
});

describe('signature', () => {
  it('is what the standardwebhooks package verifies, with one entry per active secret', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'post.published', data: { object: { text: 'héllo ✓' } } });
    const headers = signedHeaders('evt_1', new Date(), body, [current, previous]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(previous).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });

  it('keeps the old secret signing for 24 hours after a rotation, then drops it', () => {
    const now = new Date('2026-11-25T10:00:00.000Z');
    const old = { encrypted: 'old', createdAt: '2026-11-01T00:00:00.000Z', expiresAt: null };
    const fresh = { encrypted: 'new', createdAt: now.toISOString(), expiresAt: null };
    const secrets = rotatedSecrets([old], fresh, now);
    expect(activeSecrets(secrets, new Date(now.getTime() + 23 * 3600_000)).map((secret) => secret.encrypted)).toEqual(['new', 'old']);
    expect(activeSecrets(secrets, new Date(now.getTime() + 24 * 3600_000 + 1)).map((secret) => secret.encrypted)).toEqual(['new']);
    // A second rotation within the overlap keeps at most the secrets still active.
    const again = rotatedSecrets(secrets, { ...fresh, encrypted: 'newer' }, new Date(now.getTime() + 3600_000));
    expect(again.map((secret) => secret.encrypted)).toEqual(['newer', 'new', 'old']);
  });

  it('keeps at most MAX_SIGNING_SECRETS signing: rotating more often within a day drops the oldest', () => {
    let secrets = [{ encrypted: 's0', createdAt: '2026-11-25T00:00:00.000Z', expiresAt: null as string | null }];
    for (let rotation = 1; rotation <= 30; rotation++) {
      const at = new Date(Date.parse('2026-11-25T10:00:00.000Z') + rotation * 60_000);
      secrets = rotatedSecrets(secrets, { encrypted: `s${rotation}`, createdAt: at.toISOString(), expiresAt: null }, at);
    }
    expect(secrets).toHaveLength(MAX_SIGNING_SECRETS);
    expect(secrets.map((secret) => secret.encrypted)).toEqual(Array.from({ length: MAX_SIGNING_SECRETS }, (_, index) => `s${30 - index}`));
    expect(secrets.filter((secret) => secret.expiresAt === null).map((secret) => secret.encrypted)).toEqual(['s30']);
  });
});

const post = (changes: Partial<Post> = {}): Post => ({
  id: 'post_1',
  userId: 'usr_1',
  workspaceId: 'ws_1',
  accountId: 'acct_1',
  platform: 'x',
  campaignId: 'cmp_1',
  status: 'scheduled',
  text: 'hi',
  mediaUrls: [],
  mediaIds: [],
  options: {},
  format: 'text',
  threadParts: [],
  firstComment: null,
  scheduledFor: '2026-11-25T10:00:00.000Z',
  publishedAt: null,
  publishedUrl: null,
  platformPostId: null,
  error: null,
  createdAt: '2026-11-25T09:00:00.000Z',
  updatedAt: '2026-11-25T09:00:00.000Z',
  deletedAt: null,
  allowanceCycle: '2026-11',
  deleteFromPlatformRequested: false,
  ...changes,
});
const image = (changes: Partial<Post> = {}, platformDeletedAt: string | null = null): PostImage => ({ post: post(changes), platformDeletedAt });
const account = (changes: Partial<Account> = {}): Account => ({
  id: 'acct_1',
  userId: 'usr_1',
  workspaceId: 'ws_1',
  platform: 'x',
  name: 'Ana',
  handle: '@ana',
  accountType: 'personal',
  active: true,
  tokenHealth: 'healthy',
  connectedAt: '2026-11-01T00:00:00.000Z',
  platformUserId: '1',
  ...changes,
});

describe('events from images', () => {
  it('derives post events from the status and platform deletion changes only', () => {
    expect(postEvents(image(), image({ status: 'published' }))).toEqual(['post.published']);
    expect(postEvents(image(), image({ status: 'failed' }))).toEqual(['post.failed']);
    expect(postEvents(null, image({ status: 'published' }))).toEqual(['post.published']);
    // A later write to a published post (a lease field, a soft delete) is not a second event.
    expect(postEvents(image({ status: 'published' }), image({ status: 'published', deletedAt: 'x' }))).toEqual([]);
    expect(postEvents(image({ status: 'published' }), image({ status: 'published' }, '2026-11-25T11:00:00.000Z'))).toEqual(['post.platform_deleted']);
    expect(postEvents(image({ status: 'published' }, 'a'), image({ status: 'published' }, 'a'))).toEqual([]);
    expect(postEvents(image({ status: 'scheduled' }), image({ status: 'scheduled', text: 'edited' }))).toEqual([]);
    expect(postEvents(image({ status: 'published' }), null)).toEqual([]);
  });

  it('derives account events: connected, reconnected, disconnected, token health', () => {
    expect(accountEvents(null, account())).toEqual(['account.connected']);
    expect(accountEvents(account(), null)).toEqual(['account.disconnected']);
    expect(accountEvents(account(), account({ tokenHealth: 'needs_reauth' }))).toEqual(['account.token_health_changed']);
    expect(accountEvents(account({ tokenHealth: 'needs_reauth' }), account({ connectedAt: '2026-11-25T00:00:00.000Z' }))).toEqual([
      'account.connected',
      'account.token_health_changed',
    ]);
    expect(accountEvents(account(), account({ name: 'Renamed' }))).toEqual([]);
  });

  it('gives the same event id to the same stream record, and another to any other', () => {
    const id = changeEventId('posts', '000000000000000000123', 'post.published');
    expect(id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(changeEventId('posts', '000000000000000000123', 'post.published')).toBe(id);
    expect(changeEventId('posts', '000000000000000000124', 'post.published')).not.toBe(id);
    expect(changeEventId('directory', '000000000000000000123', 'post.published')).not.toBe(id);
    expect(changeEventId('posts', '000000000000000000123', 'post.failed')).not.toBe(id);
  });
});

describe('endpoint input', () => {
  it('accepts http only to 127.0.0.1 and only where the local stack allows it', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/x', { allowLoopbackHttp: true }).loopback).toBe(true);
    expect(() => checkWebhookUrl('http://127.0.0.1:8080/x', { allowLoopbackHttp: false })).toThrow(/https/);
    expect(() => checkWebhookUrl('http://localhost:8080/x', { allowLoopbackHttp: true })).toThrow(/https/);
    expect(checkWebhookUrl('https://hooks.example.com/x', { allowLoopbackHttp: false }).loopback).toBe(false);
    expect(() => checkWebhookUrl('https://hooks.example.com/x#frag', { allowLoopbackHttp: false })).toThrow(/fragment/);
  });

  it('takes known event types or ["*"], without duplicates', () => {
    expect(checkEnabledEvents(['post.failed', 'post.failed', 'post.published'])).toEqual(['post.failed', 'post.published']);
    expect(checkEnabledEvents(['*'])).toEqual(['*']);
    expect(() => checkEnabledEvents(['nope'])).toThrow(/known types/);
  });

  it('takes every event type docs/webhooks.md lists, webhook.test too (an endpoint always takes test events)', () => {
    const documented = [...readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8').matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((match) => match[1]!);
    expect(documented).toContain('webhook.test');
    expect(checkEnabledEvents(documented)).toEqual(documented);
    expect(checkEnabledEvents(['post.published', 'webhook.test'])).toEqual(['post.published', 'webhook.test']);
  });
});
