/**
 * Connecting, reconnecting and disconnecting accounts from settings (issue 11; platforms.md,
 * "Connecting an account").
 *
 * start    checks the workspace (or the account to reconnect) is the signed-in user's, keeps a
 *          one-time attempt server-side (state and PKCE verifier; bound to the user and to the
 *          session it started from; 10 minutes), and returns the platform's authorize URL.
 * finish   takes the attempt by the returned state (single use, whatever happens next), turns a
 *          refusal into a clear error, exchanges the code, asks the platform who connected, and
 *          creates the account, or updates it when that platform identity is already connected
 *          to the workspace (no duplicates). Tokens are encrypted with the account id as context
 *          before they are stored; tokenHealth becomes healthy.
 * disconnect removes the account, its tokens and its connection guard. Its scheduled posts stay
 *          and fail when due with "not connected any more" (lib/use-cases/publish-post.ts), so
 *          nothing is posted from an account the person took away.
 *
 * Every failure a person can cause is a ConnectError with a message to show; nothing here
 * answers 5xx for a refused consent, a replayed or foreign state, or an expired attempt.
 */
import { tokenExpiresAtOf } from '../../domain/token-expiry.js';
import { ConnectError, platformDisplayName } from '../../domain/connect-errors.js';
import type { Account, AccountCredentials, PublishablePlatform } from '../../domain/model.js';
import { PlatformError } from '../../domain/platform-errors.js';
import { pkceChallenge, randomUrlSafe, sameDigest, sha256Hex } from '../../domain/oauth-pkce.js';
import { newId } from '../../domain/ids.js';
import {
  platformOfKind,
  type AccountConnectionStore,
  type ConnectAttemptStore,
  type ConnectKind,
  type PlatformConnector,
  type PlatformIdentity,
} from '../ports/connect.js';
import type { AccountReader } from '../ports/accounts.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { PlatformTokens } from '../ports/platform-publisher.js';
import type { TokenCipher } from '../ports/token-cipher.js';
import type { WorkspaceReader } from '../ports/workspaces.js';

export const CONNECT_ATTEMPT_LIFETIME_MS = 10 * 60 * 1000;

export interface ConnectAccountDeps {
  connectors: Record<PublishablePlatform, PlatformConnector>;
  attempts: ConnectAttemptStore;
  connections: AccountConnectionStore;
  accounts: Pick<AccountReader, 'getAccount'>;
  workspaces: WorkspaceReader;
  cipher: TokenCipher;
  /** Our callback URL registered with each platform (stack outputs XRedirectUrl, LinkedInRedirectUrl). */
  redirectUri: (platform: PublishablePlatform) => string;
  clock?: Clock;
}

/** The signed-in person: their user id and the session the request came with. */
export interface SettingsPrincipal {
  userId: string;
  /** The session's secret id (the cookie value or its record id): the attempt is bound to its hash. */
  sessionId: string;
}

export interface CallbackParameters {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
  errorDescription?: string | undefined;
}

export interface ConnectResult {
  workspaceId: string;
  platform: PublishablePlatform;
  /** The accounts created or updated (several for LinkedIn pages). */
  accounts: Account[];
  reconnected: boolean;
}

const MAX_PARAMETER = 2048;

export class ConnectAccount {
  private readonly clock: Clock;

  constructor(private readonly deps: ConnectAccountDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  async start(principal: SettingsPrincipal, input: { kind: ConnectKind; workspaceId?: string; reconnectAccountId?: string }): Promise<{ authorizeUrl: string }> {
    let workspaceId = input.workspaceId ?? '';
    let reconnectAccountId: string | null = null;
    if (input.reconnectAccountId !== undefined) {
      const account = await this.ownAccount(principal.userId, input.reconnectAccountId);
      if (account.platform !== platformOfKind(input.kind) || (account.accountType === 'organization') !== (input.kind === 'linkedin_pages')) {
        throw new ConnectError('account_not_found', 'That account cannot be reconnected this way; use its own Reconnect button.');
      }
      workspaceId = account.workspaceId;
      reconnectAccountId = account.id;
    }
    const workspace = workspaceId === '' ? null : await this.deps.workspaces.getWorkspace(workspaceId);
    if (!workspace || workspace.userId !== principal.userId) {
      throw new ConnectError('workspace_not_found', 'That workspace does not exist or is not yours.');
    }
    const state = randomUrlSafe();
    const codeVerifier = randomUrlSafe();
    const now = this.clock.now();
    const platform = platformOfKind(input.kind);
    await this.deps.attempts.put({
      stateHash: sha256Hex(state),
      userId: principal.userId,
      sessionHash: sha256Hex(principal.sessionId),
      workspaceId: workspace.id,
      kind: input.kind,
      codeVerifier,
      reconnectAccountId,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + CONNECT_ATTEMPT_LIFETIME_MS).toISOString(),
    });
    const authorizeUrl = await this.deps.connectors[platform].authorizeUrl({
      kind: input.kind,
      state,
      codeChallenge: pkceChallenge(codeVerifier),
      redirectUri: this.deps.redirectUri(platform),
    });
    return { authorizeUrl };
  }

  async finish(principal: SettingsPrincipal, platform: PublishablePlatform, params: CallbackParameters): Promise<ConnectResult> {
    const name = platformDisplayName(platform);
    const state = params.state ?? '';
    const restart = `Start again from Workspaces with “Connect ${name}”.`;
    if (state === '' || state.length > MAX_PARAMETER) throw new ConnectError('connect_state_invalid', `${name} sent you back without a valid request. ${restart}`);
    const attempt = await this.deps.attempts.take(sha256Hex(state));
    if (
      !attempt ||
      attempt.userId !== principal.userId ||
      !sameDigest(attempt.sessionHash, sha256Hex(principal.sessionId)) ||
      platformOfKind(attempt.kind) !== platform
    ) {
      throw new ConnectError('connect_state_invalid', `This ${name} sign-in was already used or was not started from this session. ${restart}`);
    }
    if (Date.parse(attempt.expiresAt) <= this.clock.now().getTime()) {
      throw new ConnectError('connect_expired', `The ${name} sign-in took longer than ${CONNECT_ATTEMPT_LIFETIME_MS / 60_000} minutes. ${restart}`);
    }
    if (params.error !== undefined && params.error !== '') {
      if (params.error === 'access_denied') throw new ConnectError('connect_refused', `You cancelled on ${name}, so nothing was connected.`);
      const said = safeText(params.errorDescription ?? params.error);
      throw new ConnectError('connect_failed', `${name} did not connect the account (${said}). ${restart}`);
    }
    const code = params.code ?? '';
    if (code === '' || code.length > MAX_PARAMETER) throw new ConnectError('connect_failed', `${name} sent you back without an authorization code. ${restart}`);

    const connector = this.deps.connectors[platform];
    let tokens: PlatformTokens;
    let identities: PlatformIdentity[];
    try {
      tokens = await connector.exchangeCode({ code, codeVerifier: attempt.codeVerifier, redirectUri: this.deps.redirectUri(platform) });
      identities = await connector.identities({ kind: attempt.kind, accessToken: tokens.accessToken });
    } catch (error) {
      if (error instanceof PlatformError) {
        throw new ConnectError('connect_failed', `${name} refused to complete the connection (${safeText(error.message)}). ${restart}`, { cause: error });
      }
      throw error;
    }
    if (identities.length === 0) {
      throw new ConnectError('connect_no_pages', 'The LinkedIn member you signed in as administers no pages. Ask a page administrator to add you, or connect the member instead.');
    }

    if (attempt.reconnectAccountId !== null) {
      const account = await this.ownAccount(principal.userId, attempt.reconnectAccountId);
      const identity = identities.find((candidate) => candidate.platformUserId === account.platformUserId && candidate.accountType === account.accountType);
      if (!identity) {
        const who = identities.length === 1 && identities[0] ? ` as ${identities[0].handle}` : '';
        throw new ConnectError('connect_wrong_identity', `You signed in to ${name}${who}, not as ${account.handle}: nothing was changed. Sign in to ${name} as ${account.handle} and reconnect again.`);
      }
      const updated = await this.update(account, identity, tokens);
      return { workspaceId: account.workspaceId, platform, accounts: [updated], reconnected: true };
    }

    const accounts: Account[] = [];
    let reconnected = false;
    for (const identity of identities) {
      const lookup = { workspaceId: attempt.workspaceId, platform, accountType: identity.accountType, platformUserId: identity.platformUserId };
      let existingId = await this.deps.connections.findConnected(lookup);
      if (existingId === null) {
        const account = { ...this.newAccount(principal.userId, attempt.workspaceId, platform, identity), tokenExpiresAt: tokenExpiresAtOf(tokens) };
        if (await this.deps.connections.create({ account, credentials: await this.credentials(account.id, tokens) })) {
          accounts.push(account);
          continue;
        }
        // Connected meanwhile (a second tab): update that account instead of adding another.
        existingId = await this.deps.connections.findConnected(lookup);
      }
      const existing = existingId === null ? null : await this.deps.accounts.getAccount(existingId);
      if (!existing || existing.userId !== principal.userId) throw new Error(`Identity guard of ${platform} ${identity.platformUserId} points at no account of this user`);
      accounts.push(await this.update(existing, identity, tokens));
      reconnected = true;
    }
    return { workspaceId: attempt.workspaceId, platform, accounts, reconnected };
  }

  async disconnect(principal: SettingsPrincipal, accountId: string): Promise<Account> {
    const account = await this.ownAccount(principal.userId, accountId);
    await this.deps.connections.remove(account);
    return account;
  }

  private async ownAccount(userId: string, accountId: string): Promise<Account> {
    const account = accountId === '' || accountId.length > 128 ? null : await this.deps.accounts.getAccount(accountId);
    // Another user's account looks exactly like a missing one.
    if (!account || account.userId !== userId) throw new ConnectError('account_not_found', 'That account does not exist or is not yours.');
    return account;
  }

  private newAccount(userId: string, workspaceId: string, platform: PublishablePlatform, identity: PlatformIdentity): Account {
    return {
      id: newId('acct'),
      userId,
      workspaceId,
      platform,
      name: identity.name,
      handle: identity.handle,
      accountType: identity.accountType,
      active: true,
      tokenHealth: 'healthy',
      connectedAt: this.clock.now().toISOString(),
      platformUserId: identity.platformUserId,
      ...this.subscriptionOf(identity),
    };
  }

  /** X's subscription as read at connect: the account's text limit follows it (target-rules.ts textLimitFor). */
  private subscriptionOf(identity: PlatformIdentity): Pick<Account, 'xSubscription' | 'xSubscriptionCheckedAt'> {
    return identity.xSubscription === undefined ? {} : { xSubscription: identity.xSubscription, xSubscriptionCheckedAt: this.clock.now().toISOString() };
  }

  private async update(account: Account, identity: PlatformIdentity, tokens: PlatformTokens): Promise<Account> {
    const updated: Account = {
      ...account,
      name: identity.name,
      handle: identity.handle,
      tokenHealth: 'healthy',
      active: true,
      // A reconnect starts the clock again (or ends it, with a refresh token this time).
      tokenExpiresAt: tokenExpiresAtOf(tokens),
      ...this.subscriptionOf(identity),
    };
    await this.deps.connections.update({ account: updated, credentials: await this.credentials(account.id, tokens) });
    return updated;
  }

  private async credentials(accountId: string, tokens: PlatformTokens): Promise<AccountCredentials> {
    const context = { accountId };
    return {
      accountId,
      accessTokenEncrypted: await this.deps.cipher.encrypt(tokens.accessToken, context),
      refreshTokenEncrypted: tokens.refreshToken === null ? null : await this.deps.cipher.encrypt(tokens.refreshToken, context),
      accessTokenExpiresAt: tokens.expiresAt,
    };
  }
}

/** Platform words shown on a page: printable, short. */
function safeText(value: string): string {
  const cleaned = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 200);
  return cleaned === '' ? 'no reason given' : cleaned;
}
