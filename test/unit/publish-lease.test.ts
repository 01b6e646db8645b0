/**
 * The publish worker's lease heartbeat (lib/use-cases/publish-lease.ts), with fake timers: a send
 * that ends within the first third of a lease costs no write; a long one is renewed, never past
 * the invocation's deadline; a lost claim stops the renewals, and so does the work saying it needs
 * the lease no more (a create answered, its outcome still to write). The renewal itself against DynamoDB
 * Local is in test/store/publish-state.test.ts, end to end in test/http/publishing-reliability.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdingLease, leaseEnd } from '../../lib/use-cases/publish-lease.js';

const T0 = new Date('2026-11-21T09:30:00.000Z');
const clock = { now: () => new Date() };
const log = { warn: vi.fn() };

function renewals(held = true) {
  const calls: string[] = [];
  return { calls, state: { renewLease: async (_postId: string, _token: string, until: Date) => (calls.push(until.toISOString()), held) } };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
});
afterEach(() => vi.useRealTimers());

describe('leaseEnd', () => {
  it('is a lease from now, never past the deadline', () => {
    expect(leaseEnd({ leaseMs: 15_000 }, T0).toISOString()).toBe('2026-11-21T09:30:15.000Z');
    expect(leaseEnd({ leaseMs: 15_000, deadline: new Date(T0.getTime() + 4_000) }, T0).toISOString()).toBe('2026-11-21T09:30:04.000Z');
  });
});

describe('holdingLease', () => {
  it('a send that ends within a third of the lease renews nothing (the fast path costs no write)', async () => {
    const { calls, state } = renewals();
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000 }, () => new Promise((resolve) => setTimeout(() => resolve('sent'), 4_900)));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await done).toBe('sent');
    expect(calls).toEqual([]);
  });

  it('a long send is renewed every third of a lease, never past the deadline, and not after it ends', async () => {
    const { calls, state } = renewals();
    const deadline = new Date(T0.getTime() + 25_000);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000, deadline }, () => new Promise((resolve) => setTimeout(resolve, 40_000)));
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(calls).toEqual(['2026-11-21T09:30:20.000Z', '2026-11-21T09:30:25.000Z']);
  });

  it('stops renewing once the claim is lost', async () => {
    const { calls, state } = renewals(false);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 3_000 }, () => new Promise((resolve) => setTimeout(resolve, 10_000)));
    await vi.advanceTimersByTimeAsync(12_000);
    await done;
    expect(calls).toHaveLength(1);
  });

  it('a post claimed ahead of its time (held until its time plus a lease) is not renewed while it waits, only after its time', async () => {
    const { calls, state } = renewals();
    // Claimed 12 s before its time (a burst's lead): the claim holds it until 09:30:27.
    const claimedUntil = new Date(T0.getTime() + 12_000 + 15_000);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000 }, () => new Promise((resolve) => setTimeout(resolve, 22_000)), claimedUntil);
    await vi.advanceTimersByTimeAsync(30_000);
    await done;
    // The heartbeat ticks every 5 s; it writes only once less than 10 s of the claim are left: not
    // at 5 s, 10 s or 15 s (12 s left, 3 s after the post's time), at 20 s (7 s left).
    expect(calls).toEqual(['2026-11-21T09:30:35.000Z']);
  });

  it('a burst post still waiting for its answer a few seconds after its time costs no renewal', async () => {
    const { calls, state } = renewals();
    // Claimed 7 s before its time (2,000 posts due at once): held until 09:30:22; done at its time + 4 s.
    const claimedUntil = new Date(T0.getTime() + 7_000 + 15_000);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000 }, () => new Promise((resolve) => setTimeout(resolve, 11_000)), claimedUntil);
    await vi.advanceTimersByTimeAsync(20_000);
    await done;
    expect(calls).toEqual([]);
  });

  it('the work can stop the renewals (a create answered): none after that, though the lease runs low', async () => {
    const { calls, state } = renewals();
    // Claimed 7 s before its time (held until T0 + 22 s), answered at T0 + 8 s, its outcome written
    // at T0 + 16 s: the heartbeat would write at T0 + 15 s (less than 10 s of the claim left).
    const claimedUntil = new Date(T0.getTime() + 7_000 + 15_000);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000 }, async (held) => {
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      held.stopRenewing();
      await new Promise((resolve) => setTimeout(resolve, 8_000));
      return 'published';
    }, claimedUntil);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await done).toBe('published');
    expect(calls).toEqual([]);
  });

  it('without stopRenewing the same wait renews once (what the test above saves)', async () => {
    const { calls, state } = renewals();
    const claimedUntil = new Date(T0.getTime() + 7_000 + 15_000);
    const done = holdingLease({ state, clock, log }, 'post_1', 'token', { leaseMs: 15_000 }, () => new Promise((resolve) => setTimeout(() => resolve('published'), 16_000)), claimedUntil);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await done).toBe('published');
    expect(calls).toEqual(['2026-11-21T09:30:30.000Z']);
  });
});
