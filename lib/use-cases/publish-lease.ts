/**
 * The publish worker's hold on a post while it sends it: a short lease (the claim) renewed by a
 * heartbeat, so a worker that dies (kill -9, a Lambda stopped at its timeout) is replaced within
 * one lease instead of waiting out the whole invocation time, and a long send (a video upload)
 * keeps its post however long it runs.
 *
 * The heartbeat ticks every third of a lease and writes only once less than two thirds of the
 * lease it holds are left, so a send that finishes sooner (the common case) costs no write at all,
 * and neither does a post of a burst that was claimed ahead of its time (it is held until its time
 * plus a lease) and is still waiting for its create's answer or its outcome write a few seconds
 * after that time: renewing it then, as the heartbeat did while the new end merely came later than
 * the held one, cost a burst of 2,000 posts up to one write per post in the seconds its creates
 * needed DynamoDB and the CPU most. The lease is never extended past the invocation's deadline:
 * past it the runtime stops the worker, and the post must be free to be taken over then.
 *
 * The work may also say it needs the lease no more (`stopRenewing`): a post whose create was
 * answered is recorded published whoever holds it (the write is conditioned on its status, not on
 * the claim), so its heartbeat only adds writes while the outcome waits behind the burst's other
 * creates and writes: 733 of the 2,000-post burst's posts renewed then, each renewal landing after
 * the outcome and failing its condition, on the database the outcomes were waiting for.
 */
import type { Clock } from './ports/clock.js';
import type { PublishStateStore } from './ports/publish-state-store.js';

export interface PublishLease {
  /** How long a claim (or a renewal) holds the post (PUBLISH_LEASE_MS by default). */
  leaseMs: number;
  /** Time between renewals; a third of the lease by default. */
  renewEveryMs?: number;
  /** When the runtime stops this invocation (Lambda's timeout); unset: never. */
  deadline?: Date;
}

export interface LeaseLog {
  warn(message: string, details: Record<string, unknown>): void;
}

/** The end of a lease taken or renewed at `now`: a lease, but not past the deadline. */
export function leaseEnd(lease: PublishLease, now: Date): Date {
  const end = now.getTime() + lease.leaseMs;
  return new Date(lease.deadline ? Math.min(end, lease.deadline.getTime()) : end);
}

/** What the work is handed: it may stop the renewals before it ends. */
export interface HeldLease {
  /** No more renewals (the lease held now runs out by itself). */
  stopRenewing(): void;
}

/** Runs `work` while renewing the claim of `token` on the post; stops renewing when the claim is lost, or when the work says so. */
export async function holdingLease<T>(
  deps: { state: Pick<PublishStateStore, 'renewLease'>; clock: Clock; log: LeaseLog },
  postId: string,
  token: string,
  lease: PublishLease,
  work: (held: HeldLease) => Promise<T>,
  /** When the claim itself holds the post until (a post claimed ahead of its time): no renewal before it is needed. */
  claimedUntil?: Date,
): Promise<T> {
  let renewing: Promise<void> | null = null;
  let stopped = false;
  let heldUntil = claimedUntil?.getTime() ?? 0;
  const renewEveryMs = lease.renewEveryMs ?? Math.max(1, Math.floor(lease.leaseMs / 3));
  const renew = (): void => {
    if (stopped || renewing) return;
    const now = deps.clock.now();
    const until = leaseEnd(lease, now);
    // Past the deadline the runtime stops us: let the lease run out so another worker takes over.
    if (until.getTime() <= now.getTime()) {
      stop();
      return;
    }
    // Already held to the deadline: writing the same end again would change nothing.
    if (until.getTime() <= heldUntil) return;
    // Still held for more than two thirds of a lease: the next tick comes well before it runs out.
    if (heldUntil - now.getTime() > lease.leaseMs - renewEveryMs) return;
    heldUntil = until.getTime();
    renewing = deps.state
      .renewLease(postId, token, until)
      .then(
        (held) => {
          if (!held) stop();
        },
        (error: unknown) => deps.log.warn('Could not renew the lease of a post being sent', { postId, error: String(error) }),
      )
      .finally(() => {
        renewing = null;
      });
  };
  const timer = setInterval(renew, renewEveryMs);
  timer.unref();
  function stop(): void {
    stopped = true;
    clearInterval(timer);
  }
  try {
    return await work({ stopRenewing: stop });
  } finally {
    stop();
    // A renewal still in flight finds the outcome written (or the claim gone) and changes nothing.
    await renewing;
  }
}
