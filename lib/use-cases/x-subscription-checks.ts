/**
 * X long posts (beyond-v2.md): every X account's `subscription_type` is read again at least daily,
 * also when the account never posts (a publish reads it too, publish-post.ts). The metrics
 * collector runs this each minute, since it already holds X's credentials and the accounts'
 * tokens: the accounts whose last read is a day old come from byTokenExpiry's X partition (keys
 * only, oldest first), each is read from X's users/me and the read moves its entry a day on. An
 * account no longer checked (gone, disconnected, must reconnect) leaves the index; one that X
 * would not answer now (a 429, an outage) is tried again an hour later, never every minute.
 */
import { X_SUBSCRIPTION_CHECK_MS } from '../domain/x-subscription-check.js';
import type { AccessTokens } from './access-tokens.js';
import type { AccountReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformPublisher } from './ports/platform-publisher.js';

/** A check X would not answer now is tried again this much later. */
const RETRY_MS = 60 * 60_000;
/** Accounts read per run, so a run stays well within its time and X's rate limits. */
const DEFAULT_LIMIT = 50;

/** The accounts' side: byTokenExpiry's X partition (lib/store/dynamodb-account-store.ts). */
export interface XSubscriptionCheckStore {
  listXSubscriptionChecksDue(readBefore: Date, limit: number): Promise<{ accountId: string; expirySk: string }[]>;
  /** Moves the entry to `asIfReadAt` while it is still at `expirySk`; null takes the account out of the index. */
  postponeXSubscriptionCheck(accountId: string, expirySk: string, retryAt: Date | null): Promise<void>;
  /** Stores the read and moves the entry to it. */
  setXSubscription(accountId: string, xSubscription: string | null, checkedAt: Date): Promise<void>;
}

export interface XSubscriptionChecksDeps {
  store: XSubscriptionCheckStore;
  accounts: Pick<AccountReader, 'getAccounts'>;
  tokens: Pick<AccessTokens, 'accessToken'>;
  x: PlatformPublisher;
  clock: Clock;
  /** Tests only: a shorter interval than a day (the interval is applied here, at the read). */
  intervalMs?: number;
  limit?: number;
  log: { warn(message: string, details: Record<string, unknown>): void };
}

export interface XSubscriptionCheckResult {
  /** Accounts whose subscription was read from X. */
  read: number;
  /** Accounts X would not answer now, tried again later. */
  postponed: number;
  /** Accounts taken out of the checks (gone, disconnected, must reconnect). */
  dropped: number;
}

export class XSubscriptionChecks {
  constructor(private readonly deps: XSubscriptionChecksDeps) {}

  async checkDue(): Promise<XSubscriptionCheckResult> {
    const result: XSubscriptionCheckResult = { read: 0, postponed: 0, dropped: 0 };
    const subscriptionType = this.deps.x.subscriptionType?.bind(this.deps.x);
    if (!subscriptionType) return result;
    const now = this.deps.clock.now();
    const readBefore = new Date(now.getTime() - (this.deps.intervalMs ?? X_SUBSCRIPTION_CHECK_MS));
    const due = await this.deps.store.listXSubscriptionChecksDue(readBefore, this.deps.limit ?? DEFAULT_LIMIT);
    // The due accounts in one batch read, not a GetItem each.
    const accounts = await this.deps.accounts.getAccounts(due.map((entry) => entry.accountId));
    for (const { accountId, expirySk } of due) {
      const account = accounts.get(accountId);
      if (!account || account.platform !== 'x' || !account.active || (account.tokenHealth !== 'healthy' && account.tokenHealth !== 'expiring')) {
        await this.deps.store.postponeXSubscriptionCheck(accountId, expirySk, null);
        result.dropped++;
        continue;
      }
      try {
        const accessToken = await this.deps.tokens.accessToken(account, this.deps.x);
        const subscription = await subscriptionType({ accessToken });
        await this.deps.store.setXSubscription(accountId, subscription, now);
        result.read++;
      } catch (error) {
        // Whatever X or the token store said (a refused token, a 429, an outage), the check only
        // waits: an account's health is the publish path's and the reconnect's to decide.
        this.deps.log.warn('X subscription check postponed', { accountId, reason: error instanceof Error ? error.message : String(error) });
        await this.deps.store.postponeXSubscriptionCheck(accountId, expirySk, new Date(readBefore.getTime() + RETRY_MS));
        result.postponed++;
      }
    }
    return result;
  }
}
