/**
 * Each account's text limit (decisions.md "Per-platform rules", beyond-v2.md "X long posts"), apart
 * from the counting itself (twitter-text): the account view and the settings pages show it
 * without bundling a text counter.
 */
import type { Account } from './model.js';

export const X_MAX_TEXT_LENGTH = 280;
export const LINKEDIN_MAX_TEXT_LENGTH = 3000;
/** X Premium and PremiumPlus accounts post up to 25,000 weighted characters. */
export const X_PREMIUM_MAX_WEIGHTED_LENGTH = 25_000;
/** The `subscription_type` values of X's users/me that allow long posts. */
export const X_LONG_POST_SUBSCRIPTIONS: readonly string[] = ['Premium', 'PremiumPlus'];

/**
 * The text limit of one account: X's long posts for a Premium account as last read from X
 * (`xSubscription`), else the platform's. Null for a platform that cannot be posted to.
 */
export function textLimitFor(account: Pick<Account, 'platform' | 'xSubscription'>): number | null {
  if (account.platform === 'linkedin') return LINKEDIN_MAX_TEXT_LENGTH;
  if (account.platform !== 'x') return null;
  return account.xSubscription != null && X_LONG_POST_SUBSCRIPTIONS.includes(account.xSubscription) ? X_PREMIUM_MAX_WEIGHTED_LENGTH : X_MAX_TEXT_LENGTH;
}
