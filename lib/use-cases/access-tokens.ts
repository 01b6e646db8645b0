/**
 * A usable access token for an account, refreshed before it expires. Shared by the publish and the
 * platform-deletion workers.
 *
 * X rotates refresh tokens (platforms.md): each refresh returns a new one and the old one stops
 * working, so the newest is stored every time. Two workers refreshing the same account at once
 * would make one of them fail with a refresh token the other just used up; so a refusal is
 * checked against the stored credentials first (if they changed, the other worker's token is
 * used), and refreshes of one account in one process share a single request.
 */
import type { Account, AccountCredentials } from '../domain/model.js';
import { PlatformAuthError } from '../domain/platform-errors.js';
import type { CredentialStore } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { PlatformPublisher } from './ports/platform-publisher.js';
import type { TokenCipher } from './ports/token-cipher.js';

/** Refresh when the access token has less than this left, so it cannot expire mid-send. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/** The account has no credentials item (never connected, or disconnected). */
export class CredentialsMissingError extends Error {
  readonly code = 'credentials_missing';
  constructor(accountId: string) {
    super(`Account ${accountId} has no stored credentials`);
    this.name = 'CredentialsMissingError';
  }
}

/** The refresh grant was refused: the user must reconnect. `message` is what the platform said. */
export class TokenRefreshFailedError extends Error {
  readonly code = 'token_refresh_failed';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TokenRefreshFailedError';
  }
}

export interface AccessTokensDeps {
  credentials: CredentialStore;
  cipher: TokenCipher;
  clock: Clock;
  sleep?: (ms: number) => Promise<void>;
}

export class AccessTokens {
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: AccessTokensDeps) {
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * The access token to use now; throws CredentialsMissingError, TokenRefreshFailedError or a
   * transient PlatformError. `known` is the credentials the caller already read (strongly
   * consistent) with the account, so they are not read again.
   */
  async accessToken(account: Account, publisher: PlatformPublisher, known?: { credentials: AccountCredentials | null }): Promise<string> {
    const stored = known ? known.credentials : await this.deps.credentials.getCredentials(account.id);
    if (!stored) throw new CredentialsMissingError(account.id);
    if (!this.needsRefresh(stored)) return this.decrypt(stored.accessTokenEncrypted, account.id);
    let pending = this.inFlight.get(account.id);
    if (!pending) {
      pending = this.refresh(account, stored, publisher).finally(() => this.inFlight.delete(account.id));
      this.inFlight.set(account.id, pending);
    }
    return pending;
  }

  private needsRefresh(credentials: AccountCredentials): boolean {
    // Without a refresh token (LinkedIn's normal apps) there is nothing to do but use what we have.
    if (credentials.refreshTokenEncrypted === null || credentials.accessTokenExpiresAt === null) return false;
    return Date.parse(credentials.accessTokenExpiresAt) - this.deps.clock.now().getTime() < REFRESH_MARGIN_MS;
  }

  private decrypt(cipherText: string, accountId: string): Promise<string> {
    return this.deps.cipher.decrypt(cipherText, { accountId });
  }

  private async refresh(account: Account, stored: AccountCredentials, publisher: PlatformPublisher): Promise<string> {
    const refreshToken = await this.decrypt(stored.refreshTokenEncrypted as string, account.id);
    let tokens;
    try {
      tokens = await publisher.refreshAccessToken({ refreshToken });
    } catch (error) {
      if (!(error instanceof PlatformAuthError)) throw error;
      // Another worker may have rotated the refresh token a moment ago: use what it stored.
      for (const wait of [0, 250, 750]) {
        if (wait > 0) await this.sleep(wait);
        const latest = await this.deps.credentials.getCredentials(account.id);
        if (latest && latest.refreshTokenEncrypted !== stored.refreshTokenEncrypted && !this.needsRefresh(latest)) {
          return this.decrypt(latest.accessTokenEncrypted, account.id);
        }
      }
      await this.deps.credentials.setTokenHealth(account.id, 'refresh_failed');
      throw new TokenRefreshFailedError(error.message, { cause: error });
    }
    const context = { accountId: account.id };
    const next: AccountCredentials = {
      accountId: account.id,
      accessTokenEncrypted: await this.deps.cipher.encrypt(tokens.accessToken, context),
      refreshTokenEncrypted:
        tokens.refreshToken === null ? stored.refreshTokenEncrypted : await this.deps.cipher.encrypt(tokens.refreshToken, context),
      accessTokenExpiresAt: tokens.expiresAt,
    };
    // The old refresh token is dead now: losing the new one would cut the account off, so insist.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.credentials.putCredentials(next);
        break;
      } catch (error) {
        if (attempt >= 4) throw error;
        await this.sleep(100 * 2 ** attempt);
      }
    }
    if (account.tokenHealth === 'refresh_failed' || account.tokenHealth === 'needs_reauth') {
      await this.deps.credentials.setTokenHealth(account.id, 'healthy');
    }
    return tokens.accessToken;
  }
}
