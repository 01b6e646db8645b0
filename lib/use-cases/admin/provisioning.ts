/**
 * The account-settings stand-in: creating users, workspaces, connected accounts, API keys and
 * media library files. One module behind the admin CLI, the demo seed and the tests'
 * provisioning helper, so all three make records exactly the same way.
 *
 * Inputs are validated here (not only in the CLI): the seed and tests go through the same
 * checks, and a record that breaks the API's assumptions can never be written.
 */
import { generateApiKey } from '../../domain/api-key.js';
import { DirectoryRecordNotFoundError, ProvisioningInputError } from '../../domain/directory-errors.js';
import { guessContentType, isContentType, mediaObjectKey, mediaUrl } from '../../domain/media-library.js';
import {
  ACCOUNT_TYPES,
  SANDBOX_BEHAVIOURS,
  SCOPES,
  TOKEN_HEALTH,
  X_SUBSCRIPTIONS,
  type XSubscription,
  type Account,
  type AccountType,
  type ApiKeyRecord,
  type MediaItem,
  type SandboxBehaviour,
  type Scope,
  type TokenHealth,
  type User,
  type Workspace,
} from '../../domain/model.js';
import { mp4DurationSeconds } from '../../domain/mp4-duration.js';
import { SNIFF_BYTES, uploadRule } from '../../domain/media-upload-rules.js';
import { MAX_DOCUMENT_PAGES, PDF_WINDOW_BYTES, pdfPageCount } from '../../domain/pdf-pages.js';
import { issueSandboxTokens } from '../../domain/sandbox-tokens.js';
import { tokenExpiresAtOf } from '../../domain/token-expiry.js';
import { newId, randomToken } from '../../domain/ids.js';
import type { AccountAdmin, CredentialStore } from '../ports/accounts.js';
import type { ApiKeyAdmin } from '../ports/api-keys.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { MediaAdmin, MediaObjectWriter } from '../ports/media.js';
import type { TokenCipher } from '../ports/token-cipher.js';
import type { UserAdmin, UserReader } from '../ports/users.js';
import type { WorkspaceAdmin, WorkspaceReader } from '../ports/workspaces.js';

export const DEFAULT_MONTHLY_POST_ALLOWANCE = 1000;
const MAX_MONTHLY_POST_ALLOWANCE = 1_000_000_000;

/** Platform values are free (GET /accounts lists any platform) but must look like one: a lowercase word. */
const PLATFORM_PATTERN = /^[a-z][a-z0-9]{0,31}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The directory's record stores, each through the ports provisioning uses (lib/store/directory-stores.ts builds them). */
export interface DirectoryPort {
  users: UserReader & UserAdmin;
  workspaces: WorkspaceReader & WorkspaceAdmin;
  accounts: AccountAdmin & CredentialStore;
  apiKeys: ApiKeyAdmin;
  media: MediaAdmin;
}

export interface ProvisioningDeps {
  directory: DirectoryPort;
  cipher: TokenCipher;
  clock?: Clock;
  /** Needed only by addMedia. */
  media?: { writer: MediaObjectWriter; baseUrl: string };
}

export interface CreateUserInput {
  email: string;
  monthlyPostAllowance?: number;
  active?: boolean;
}

export interface ConnectAccountInput {
  workspaceId: string;
  platform: string;
  handle: string;
  name?: string;
  accountType?: AccountType;
  tokenHealth?: TokenHealth;
  sandbox?: SandboxBehaviour;
  /** X: what the sandbox X answers for subscription_type, read as at a connect (Premium posts 25,000). */
  xSubscription?: XSubscription;
  /** The sandbox token ends in this many days (default: the platform's lifetime). */
  tokenExpiresInDays?: number;
  /** No refresh token (LinkedIn without partner access): the account warns 7 days before the end. */
  noRefreshToken?: boolean;
}

export interface AccountChanges {
  tokenHealth?: TokenHealth;
  sandbox?: SandboxBehaviour;
  /** X: what the sandbox X answers from now on; the service learns it at its next read (publish, daily). */
  xSubscription?: XSubscription;
  /** New sandbox tokens that end in this many days (as a reconnect would store). */
  tokenExpiresInDays?: number;
  /** With tokenExpiresInDays (or alone): the new tokens have no refresh token. */
  noRefreshToken?: boolean;
  active?: boolean;
  name?: string;
}

export interface CreatedApiKey {
  record: ApiKeyRecord;
  /** The full key: shown once, never stored. */
  key: string;
}

export interface AddMediaInput {
  userId: string;
  fileName: string;
  body: Uint8Array;
  contentType?: string;
  durationSeconds?: number;
}

function text(param: string, value: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > max || CONTROL_CHARACTERS.test(trimmed)) {
    throw new ProvisioningInputError(param, `${param} must be 1 to ${max} printable characters`);
  }
  return trimmed;
}

function oneOf<T extends string>(param: string, value: T | undefined, allowed: readonly T[]): T | undefined {
  if (value !== undefined && !allowed.includes(value)) {
    throw new ProvisioningInputError(param, `${param} must be one of ${allowed.join(', ')}; got "${value}"`);
  }
  return value;
}

function allowance(value: number | undefined): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > MAX_MONTHLY_POST_ALLOWANCE)) {
    throw new ProvisioningInputError('quota', `quota must be a whole number from 0 to ${MAX_MONTHLY_POST_ALLOWANCE}`);
  }
  return value;
}

/** A platform-side author id shaped like the real ones: digits for X users and LinkedIn organizations. */
function samplePlatformUserId(platform: string, accountType: AccountType): string {
  if (platform === 'x' || (platform === 'linkedin' && accountType === 'organization')) {
    let digits = String(1 + Math.floor(Math.random() * 9));
    while (digits.length < 18) digits += String(Math.floor(Math.random() * 10));
    return digits;
  }
  return randomToken(10);
}

export class Provisioning {
  private readonly directory: DirectoryPort;
  private readonly cipher: TokenCipher;
  private readonly clock: Clock;
  private readonly media: ProvisioningDeps['media'];

  constructor(deps: ProvisioningDeps) {
    this.directory = deps.directory;
    this.cipher = deps.cipher;
    this.clock = deps.clock ?? systemClock;
    this.media = deps.media;
  }

  async createUser(input: CreateUserInput): Promise<User> {
    const email = input.email.trim();
    if (email.length > 254 || !EMAIL_PATTERN.test(email)) {
      throw new ProvisioningInputError('email', `email must be an e-mail address; got "${input.email}"`);
    }
    const user: User = {
      id: newId('usr'),
      email,
      active: input.active ?? true,
      monthlyPostAllowance: allowance(input.monthlyPostAllowance) ?? DEFAULT_MONTHLY_POST_ALLOWANCE,
      workspaceIds: [],
      createdAt: this.now(),
    };
    await this.directory.users.putUser(user);
    return user;
  }

  async updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User> {
    return this.directory.users.updateUser(userId, {
      active: changes.active,
      monthlyPostAllowance: allowance(changes.monthlyPostAllowance),
    });
  }

  /** Throws DirectoryRecordNotFoundError('user') when the user does not exist. */
  async createWorkspace(input: { userId: string; name: string }): Promise<Workspace> {
    const workspace: Workspace = {
      id: newId('ws'),
      userId: input.userId,
      name: text('name', input.name, 100),
      createdAt: this.now(),
    };
    await this.directory.workspaces.putWorkspace(workspace);
    return workspace;
  }

  /**
   * Connects an account to a workspace (owned by the workspace's user) and stores sandbox
   * credentials for it, encrypted. Credentials are written first, so an account never exists
   * without them.
   */
  async connectAccount(input: ConnectAccountInput): Promise<Account> {
    if (!PLATFORM_PATTERN.test(input.platform)) {
      throw new ProvisioningInputError('platform', `platform must be a lowercase word like "x" or "instagram"; got "${input.platform}"`);
    }
    const handle = text('handle', input.handle, 100);
    if (/\s/.test(handle)) throw new ProvisioningInputError('handle', 'handle must not contain spaces');
    const name = input.name === undefined ? handle.replace(/^@/, '') : text('name', input.name, 200);
    const accountType = oneOf('account-type', input.accountType, ACCOUNT_TYPES) ?? 'personal';
    const tokenHealth = oneOf('token-health', input.tokenHealth, TOKEN_HEALTH) ?? 'healthy';
    const sandbox = oneOf('sandbox', input.sandbox, SANDBOX_BEHAVIOURS) ?? 'ok';
    const xSubscription = oneOf('x-subscription', input.xSubscription, X_SUBSCRIPTIONS);
    if (xSubscription !== undefined && input.platform !== 'x') throw new ProvisioningInputError('x-subscription', 'x-subscription is for x accounts only');

    const workspace = await this.directory.workspaces.getWorkspace(input.workspaceId);
    if (!workspace) throw new DirectoryRecordNotFoundError('workspace', input.workspaceId);

    const now = this.clock.now();
    const account: Account = {
      id: newId('acct'),
      userId: workspace.userId,
      workspaceId: workspace.id,
      platform: input.platform,
      name,
      handle,
      accountType,
      active: true,
      tokenHealth,
      connectedAt: now.toISOString(),
      platformUserId: samplePlatformUserId(input.platform, accountType),
      sandbox,
      // As a connect reads it from X's users/me: the sandbox answers the same from now on.
      ...(xSubscription !== undefined ? { sandboxXSubscription: xSubscription, xSubscription, xSubscriptionCheckedAt: now.toISOString() } : {}),
    };
    const tokenExpiresAt = await this.storeSandboxTokens(account, now, input);
    await this.directory.accounts.putAccount({ ...account, tokenExpiresAt });
    return { ...account, tokenExpiresAt };
  }

  /**
   * Sandbox tokens for the account, encrypted: ending in `tokenExpiresInDays` days when given, and
   * without a refresh token when `noRefreshToken`. Returns the account's tokenExpiresAt (set only
   * when nothing can refresh them: token-expiry.ts).
   */
  private async storeSandboxTokens(account: Pick<Account, 'id' | 'platform'>, now: Date, input: { tokenExpiresInDays?: number; noRefreshToken?: boolean }): Promise<string | null> {
    const days = input.tokenExpiresInDays;
    if (days !== undefined && !(Number.isInteger(days) && days >= 0 && days <= 3650)) {
      throw new ProvisioningInputError('token-expires-in-days', `token-expires-in-days must be a whole number of days from 0 to 3650; got ${String(days)}`);
    }
    // The token itself carries its end, so the sandbox refuses it once ended (sandbox-tokens.ts).
    const tokens = issueSandboxTokens(account.id, account.platform, now, days === undefined ? undefined : days * 24 * 60 * 60 * 1000);
    const expiresAt = tokens.accessTokenExpiresAt;
    const refreshToken = input.noRefreshToken === true ? null : tokens.refreshToken;
    const context = { accountId: account.id };
    await this.directory.accounts.putCredentials({
      accountId: account.id,
      accessTokenEncrypted: await this.cipher.encrypt(tokens.accessToken, context),
      refreshTokenEncrypted: refreshToken === null ? null : await this.cipher.encrypt(refreshToken, context),
      accessTokenExpiresAt: expiresAt,
    });
    return tokenExpiresAtOf({ refreshToken, expiresAt });
  }

  /** Throws DirectoryRecordNotFoundError('account') when the account does not exist. */
  async updateAccount(accountId: string, changes: AccountChanges): Promise<Account> {
    if (changes.tokenExpiresInDays !== undefined || changes.noRefreshToken === true) {
      // The account's own record first: a missing account fails before any token is written.
      const account = await this.directory.accounts.updateAccount(accountId, {});
      await this.directory.accounts.setTokenExpiry(accountId, await this.storeSandboxTokens(account, this.clock.now(), changes));
    }
    return this.directory.accounts.updateAccount(accountId, {
      tokenHealth: oneOf('token-health', changes.tokenHealth, TOKEN_HEALTH),
      sandbox: oneOf('sandbox', changes.sandbox, SANDBOX_BEHAVIOURS),
      sandboxXSubscription: oneOf('x-subscription', changes.xSubscription, X_SUBSCRIPTIONS),
      active: changes.active,
      name: changes.name === undefined ? undefined : text('name', changes.name, 200),
    });
  }

  /** Keys from settings carry all four scopes (api-v1.md); narrower keys exist for tests. */
  async createApiKey(input: { userId: string; scopes?: readonly Scope[] }): Promise<CreatedApiKey> {
    const requested = input.scopes ?? SCOPES;
    if (requested.length === 0) throw new ProvisioningInputError('scopes', 'scopes must name at least one scope');
    for (const scope of requested) oneOf('scopes', scope, SCOPES);
    // Stored in the contract's order, whatever order they were given in.
    const scopes = SCOPES.filter((scope) => requested.includes(scope));
    await this.requireUser(input.userId);
    const generated = generateApiKey();
    const record: ApiKeyRecord = {
      id: generated.id,
      userId: input.userId,
      secretHash: generated.secretHash,
      scopes,
      createdAt: this.now(),
      revokedAt: null,
    };
    await this.directory.apiKeys.putApiKey(record);
    return { record, key: generated.key };
  }

  /** Revoking twice keeps the first revokedAt. Throws DirectoryRecordNotFoundError('api_key') for an unknown id. */
  async revokeApiKey(keyId: string): Promise<{ id: string; revokedAt: string }> {
    const revokedAt = await this.directory.apiKeys.revokeApiKey(keyId, this.now());
    return { id: keyId, revokedAt };
  }

  /**
   * The content type a file will be stored as, checked against its size before its bytes are
   * read: the admin CLI asks this first, so a PDF over the library's limit is refused without
   * reading 100 MB. Images and videos keep the CLI's latitude (any type, any size: test fixtures).
   */
  checkMediaFile(input: { fileName: string; contentType?: string; sizeBytes: number }): string {
    const contentType = (input.contentType ?? guessContentType(input.fileName))?.toLowerCase();
    if (contentType === undefined) {
      throw new ProvisioningInputError('content-type', `cannot tell the content type of "${input.fileName}" from its extension; give it`);
    }
    if (!isContentType(contentType)) {
      throw new ProvisioningInputError('content-type', `content type must look like "image/png"; got "${contentType}"`);
    }
    if (input.sizeBytes === 0) throw new ProvisioningInputError('file', 'file is empty');
    const rule = uploadRule(contentType);
    if (rule?.kind === 'document' && input.sizeBytes > rule.maxBytes) {
      throw new ProvisioningInputError('file', `a PDF may be at most ${rule.maxBytes / 1_000_000} MB; this one is ${(input.sizeBytes / 1_000_000).toFixed(1)} MB`);
    }
    return contentType;
  }

  /**
   * Stores a file in the media library: bytes to the media bucket, then the record, so a record
   * never points at a missing object. A video's duration is read from the file when not given. A
   * PDF is held to the library's rules as in settings (its magic bytes, 100 MB, its page count
   * where it can be read, at most MAX_DOCUMENT_PAGES).
   */
  async addMedia(input: AddMediaInput): Promise<MediaItem> {
    if (!this.media) throw new Error('Provisioning was built without media storage');
    const contentType = this.checkMediaFile({ fileName: input.fileName, sizeBytes: input.body.byteLength, ...(input.contentType !== undefined ? { contentType: input.contentType } : {}) });
    let pageCount: number | null = null;
    const rule = uploadRule(contentType);
    if (rule?.kind === 'document') {
      if (!rule.matches(input.body.subarray(0, SNIFF_BYTES))) throw new ProvisioningInputError('file', `"${input.fileName}" is not a PDF: it does not start with %PDF-`);
      // The same windows settings reads, so both faces count alike.
      const size = input.body.byteLength;
      const windows = size > PDF_WINDOW_BYTES ? [input.body.subarray(0, PDF_WINDOW_BYTES), input.body.subarray(Math.max(PDF_WINDOW_BYTES, size - PDF_WINDOW_BYTES))] : [input.body];
      pageCount = pdfPageCount(windows);
      if (pageCount === 0) throw new ProvisioningInputError('file', 'the PDF has no pages');
      if (pageCount !== null && pageCount > MAX_DOCUMENT_PAGES) throw new ProvisioningInputError('file', `the PDF has ${pageCount} pages; LinkedIn takes at most ${MAX_DOCUMENT_PAGES}`);
    }
    let durationSeconds = input.durationSeconds ?? null;
    if (durationSeconds !== null && (!Number.isFinite(durationSeconds) || durationSeconds <= 0)) {
      throw new ProvisioningInputError('duration-seconds', 'duration-seconds must be a positive number');
    }
    if (durationSeconds === null && contentType.startsWith('video/')) {
      durationSeconds = mp4DurationSeconds(input.body);
      if (durationSeconds === null) {
        throw new ProvisioningInputError('duration-seconds', 'cannot read the video duration from the file; give duration-seconds');
      }
    }
    await this.requireUser(input.userId);

    const id = newId('med');
    const objectKey = mediaObjectKey(input.userId, id, input.fileName);
    await this.media.writer.putObject(objectKey, input.body, contentType);
    const item: MediaItem = {
      id,
      userId: input.userId,
      url: mediaUrl(this.media.baseUrl, objectKey),
      contentType,
      sizeBytes: input.body.byteLength,
      durationSeconds,
      ...(pageCount !== null ? { pageCount } : {}),
      objectKey,
      createdAt: this.now(),
    };
    await this.directory.media.putMediaItem(item);
    return item;
  }

  private async requireUser(userId: string): Promise<User> {
    const user = await this.directory.users.getUser(userId);
    if (!user) throw new DirectoryRecordNotFoundError('user', userId);
    return user;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
