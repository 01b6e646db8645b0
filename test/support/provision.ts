/**
 * Test data through the same provisioning module as the admin CLI and the demo seed, written
 * straight to the local stack's DynamoDB (and media bucket). Reads its configuration from the
 * environment at call time: the local stack started by test/support/stack.ts sets it, and a test
 * file may run its own stack (own table prefix), so nothing is cached across environments.
 */
import { ENV, requireEnv } from '../../lib/config.js';
import type { Account, AccountType, MediaItem, SandboxBehaviour, Scope, TokenHealth, User, XSubscription } from '../../lib/domain/model.js';
import { randomToken } from '../../lib/domain/ids.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { S3MediaObjectWriter } from '../../lib/store/s3-media-object-writer.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { Provisioning, type AccountChanges } from '../../lib/use-cases/admin/provisioning.js';

let cached: { signature: string; provisioning: Provisioning } | undefined;

/** The provisioning module wired to whatever stack the environment names right now. */
export function provisioning(): Provisioning {
  const names = [ENV.directoryTable, ENV.localTokenKeyFile, ENV.tokenKmsKeyId, ENV.mediaBucket, ENV.mediaBaseUrl];
  const signature = names.map((name) => process.env[name] ?? '').join('\u0000');
  if (cached?.signature !== signature) {
    const mediaBucket = process.env[ENV.mediaBucket];
    const mediaBaseUrl = process.env[ENV.mediaBaseUrl];
    cached = {
      signature,
      provisioning: new Provisioning({
        directory: directoryStores({ tableName: requireEnv(ENV.directoryTable) }),
        cipher: tokenCipherFromEnv(),
        ...(mediaBucket && mediaBaseUrl
          ? { media: { writer: new S3MediaObjectWriter({ bucket: mediaBucket }), baseUrl: mediaBaseUrl } }
          : {}),
      }),
    };
  }
  return cached.provisioning;
}

export interface AccountSpec {
  platform: string;
  /** Index into the user's workspaces; 0 when absent. */
  workspaceIndex?: number;
  tokenHealth?: TokenHealth;
  sandbox?: SandboxBehaviour;
  handle?: string;
  name?: string;
  accountType?: AccountType;
  /** X: the sandbox's subscription_type, read as at a connect (admin CLI --x-subscription). */
  xSubscription?: XSubscription;
}

export interface ProvisionOptions {
  /** Scopes of the key; all four when absent (as keys from settings). */
  scopes?: Scope[];
  /** Monthly post allowance; the provisioning default (1000) when absent. */
  quota?: number;
  active?: boolean;
  /** How many workspaces to make; 1 when absent. */
  workspaces?: number;
  accounts?: AccountSpec[];
}

export interface ProvisionedUser {
  userId: string;
  /** The full key, for the Authorization header. */
  apiKey: string;
  keyId: string;
  workspaceIds: string[];
  /** In the order of `accounts` in the options. */
  accounts: Account[];
}

export async function provisionUser(options: ProvisionOptions = {}): Promise<ProvisionedUser> {
  const admin = provisioning();
  const user = await admin.createUser({
    email: `user-${randomToken(10).toLowerCase()}@example.test`,
    monthlyPostAllowance: options.quota,
    active: options.active ?? true,
  });
  const workspaceIds: string[] = [];
  for (let index = 0; index < (options.workspaces ?? 1); index += 1) {
    workspaceIds.push((await admin.createWorkspace({ userId: user.id, name: `Workspace ${index + 1}` })).id);
  }
  const accounts: Account[] = [];
  for (const spec of options.accounts ?? []) {
    const workspaceId = workspaceIds[spec.workspaceIndex ?? 0];
    if (workspaceId === undefined) throw new Error(`provisionUser: no workspace ${spec.workspaceIndex} (made ${workspaceIds.length})`);
    // One after the other, so connectedAt (the order of GET /accounts) follows the options.
    accounts.push(await connectAccount(workspaceId, spec));
  }
  const key = await admin.createApiKey({ userId: user.id, scopes: options.scopes });
  return { userId: user.id, apiKey: key.key, keyId: key.record.id, workspaceIds, accounts };
}

/** Connects one more account to an existing workspace. */
export function connectAccount(workspaceId: string, spec: Omit<AccountSpec, 'workspaceIndex'>): Promise<Account> {
  return provisioning().connectAccount({
    workspaceId,
    platform: spec.platform,
    handle: spec.handle ?? `${spec.platform}-${randomToken(8).toLowerCase()}`,
    name: spec.name,
    accountType: spec.accountType,
    tokenHealth: spec.tokenHealth,
    sandbox: spec.sandbox,
    xSubscription: spec.xSubscription,
  });
}

export function updateAccount(accountId: string, changes: AccountChanges): Promise<Account> {
  return provisioning().updateAccount(accountId, changes);
}

export function updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User> {
  return provisioning().updateUser(userId, changes);
}

export async function revokeKey(keyId: string): Promise<string> {
  return (await provisioning().revokeApiKey(keyId)).revokedAt;
}

/** An extra key for an existing user (e.g. with other scopes). */
export async function createKey(userId: string, scopes?: Scope[]): Promise<{ keyId: string; apiKey: string }> {
  const created = await provisioning().createApiKey({ userId, scopes });
  return { keyId: created.record.id, apiKey: created.key };
}

export interface AddMediaOptions {
  fileName?: string;
  contentType?: string;
  durationSeconds?: number;
  /** File content; a few bytes standing in for an image when absent. */
  body?: Uint8Array;
}

/** Puts a file in the user's media library (media bucket + record); needs MEDIA_BUCKET and MEDIA_BASE_URL. */
export function addMedia(userId: string, options: AddMediaOptions = {}): Promise<MediaItem> {
  const fileName = options.fileName ?? 'image.png';
  return provisioning().addMedia({
    userId,
    fileName,
    body: options.body ?? Buffer.from(`test media ${fileName}`),
    contentType: options.contentType,
    durationSeconds: options.durationSeconds,
  });
}
