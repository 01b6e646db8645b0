/**
 * X long posts (beyond-v2.md): an X account's `subscription_type` decides its text limit, and it is
 * read again at connect and at least daily, whether or not the account posts: a person who buys
 * Premium sees the 25,000 limit within a day, and one who lost it stops being offered it. Pure.
 */

/** The longest an X account's subscription goes unread. */
export const X_SUBSCRIPTION_CHECK_MS = 24 * 60 * 60 * 1000;

/**
 * When the account's subscription was last read: its last check, or its connection when X never
 * said (an account connected before the subscription was read counts from its connection).
 */
export function xSubscriptionLastRead(account: { xSubscriptionCheckedAt?: string | null; connectedAt: string }): string {
  return account.xSubscriptionCheckedAt ?? account.connectedAt;
}

/** Whether a read at `lastRead` is older than the check interval at `now`. */
export function xSubscriptionStale(lastRead: string | null | undefined, now: Date, intervalMs: number = X_SUBSCRIPTION_CHECK_MS): boolean {
  const at = lastRead ? Date.parse(lastRead) : Number.NaN;
  return !(now.getTime() - at < intervalMs);
}
