/**
 * The provisioning module (admin CLI, demo seed, test helper) against DynamoDB Local, with the
 * local token cipher and a fixed clock.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { parseApiKey, secretMatches } from '../../lib/domain/api-key.js';
import { DirectoryRecordNotFoundError, ProvisioningInputError } from '../../lib/domain/directory-errors.js';
import { parseSandboxToken } from '../../lib/domain/sandbox-tokens.js';
import { newId } from '../../lib/domain/ids.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { LocalTokenCipher } from '../../lib/store/token-cipher.js';
import { Provisioning } from '../../lib/use-cases/admin/provisioning.js';
import { seedDemo } from '../../local/seed-demo.js';

const now = new Date('2026-11-21T09:30:00.000Z');
const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const directory = directoryStores({ tableName: sharedTables.directory ?? '', client: DynamoDBDocumentClient.from(raw) });
afterAll(() => raw.destroy());
const cipher = new LocalTokenCipher(randomBytes(32));
const provisioning = new Provisioning({ directory, cipher, clock: { now: () => now } });

async function userWithWorkspace() {
  const user = await provisioning.createUser({ email: 'owner@example.test' });
  const workspace = await provisioning.createWorkspace({ userId: user.id, name: 'Main' });
  return { user, workspace };
}

describe('users and workspaces', () => {
  it('creates an active user with the default allowance, and a workspace listed on it', async () => {
    const { user, workspace } = await userWithWorkspace();
    expect(user).toMatchObject({ email: 'owner@example.test', active: true, monthlyPostAllowance: 1000, createdAt: '2026-11-21T09:30:00.000Z' });
    expect(user.id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
    expect(await directory.users.getUser(user.id)).toEqual({ ...user, workspaceIds: [workspace.id] });
    expect(await directory.workspaces.getWorkspace(workspace.id)).toEqual(workspace);
  });

  it('updates the subscription and the allowance', async () => {
    const user = await provisioning.createUser({ email: 'x@example.test', monthlyPostAllowance: 5, active: false });
    expect(await provisioning.updateUser(user.id, { active: true, monthlyPostAllowance: 0 })).toMatchObject({ active: true, monthlyPostAllowance: 0 });
  });

  it.each([
    ['email', () => provisioning.createUser({ email: 'not-an-email' })],
    ['email', () => provisioning.createUser({ email: 'a b@example.test' })],
    ['quota', () => provisioning.createUser({ email: 'a@example.test', monthlyPostAllowance: -1 })],
    ['quota', () => provisioning.createUser({ email: 'a@example.test', monthlyPostAllowance: 1.5 })],
    ['quota', () => provisioning.updateUser(newId('usr'), { monthlyPostAllowance: Number.NaN })],
    ['name', () => provisioning.createWorkspace({ userId: newId('usr'), name: '   ' })],
  ])('refuses a bad %s before writing anything', async (param, attempt) => {
    await expect(attempt()).rejects.toMatchObject({ name: 'ProvisioningInputError', param });
  });

  it('refuses a workspace for a user that does not exist', async () => {
    await expect(provisioning.createWorkspace({ userId: newId('usr'), name: 'Main' })).rejects.toMatchObject({ code: 'user_not_found' });
  });
});

describe('connecting an account', () => {
  it("belongs to the workspace's owner and carries sandbox tokens sealed for that account", async () => {
    const { user, workspace } = await userWithWorkspace();
    const x = await provisioning.connectAccount({ workspaceId: workspace.id, platform: 'x', handle: '@acme' });
    expect(x).toMatchObject({
      userId: user.id,
      workspaceId: workspace.id,
      platform: 'x',
      handle: '@acme',
      name: 'acme',
      accountType: 'personal',
      active: true,
      tokenHealth: 'healthy',
      sandbox: 'ok',
      connectedAt: '2026-11-21T09:30:00.000Z',
    });
    expect(x.platformUserId).toMatch(/^[1-9]\d{17}$/);

    const credentials = await directory.accounts.getCredentials(x.id);
    expect(credentials?.accessTokenExpiresAt).toBe('2026-11-21T11:30:00.000Z');
    const context = { accountId: x.id };
    const access = await cipher.decrypt(credentials?.accessTokenEncrypted ?? '', context);
    const refresh = await cipher.decrypt(credentials?.refreshTokenEncrypted ?? '', context);
    expect(parseSandboxToken(access)).toMatchObject({ kind: 'access', accountId: x.id });
    expect(parseSandboxToken(refresh)).toEqual({ kind: 'refresh', accountId: x.id });
    // Stored sealed, never in the clear.
    expect(credentials?.accessTokenEncrypted).not.toContain(access);

    const linkedin = await provisioning.connectAccount({
      workspaceId: workspace.id,
      platform: 'linkedin',
      handle: 'acme-corp',
      name: 'Acme Corp',
      accountType: 'organization',
      tokenHealth: 'expiring',
      sandbox: 'flaky',
    });
    expect(linkedin).toMatchObject({ name: 'Acme Corp', accountType: 'organization', tokenHealth: 'expiring', sandbox: 'flaky' });
    expect((await directory.accounts.getCredentials(linkedin.id))?.accessTokenExpiresAt).toBe('2027-01-20T09:30:00.000Z');
    expect(await directory.accounts.listAccounts(user.id, {})).toHaveLength(2);
  });

  it('accepts any lowercase platform word and refuses anything else', async () => {
    const { workspace } = await userWithWorkspace();
    expect((await provisioning.connectAccount({ workspaceId: workspace.id, platform: 'instagram', handle: 'acme' })).platform).toBe('instagram');
    for (const platform of ['X', 'insta gram', '', 'x#1', 'a'.repeat(33)]) {
      await expect(provisioning.connectAccount({ workspaceId: workspace.id, platform, handle: 'acme' })).rejects.toMatchObject({ param: 'platform' });
    }
    await expect(provisioning.connectAccount({ workspaceId: workspace.id, platform: 'x', handle: 'two words' })).rejects.toMatchObject({ param: 'handle' });
    await expect(
      provisioning.connectAccount({ workspaceId: workspace.id, platform: 'x', handle: 'a', tokenHealth: 'sick' as 'healthy' }),
    ).rejects.toBeInstanceOf(ProvisioningInputError);
  });

  it('refuses a workspace that does not exist, writing nothing', async () => {
    const workspaceId = newId('ws');
    await expect(provisioning.connectAccount({ workspaceId, platform: 'x', handle: 'a' })).rejects.toMatchObject({
      code: 'workspace_not_found',
    });
  });

  it('updates the token health and sandbox behaviour of an account', async () => {
    const { workspace } = await userWithWorkspace();
    const account = await provisioning.connectAccount({ workspaceId: workspace.id, platform: 'x', handle: 'a' });
    expect(await provisioning.updateAccount(account.id, { tokenHealth: 'needs_reauth', sandbox: 'expired' })).toEqual({
      ...account,
      tokenHealth: 'needs_reauth',
      sandbox: 'expired',
    });
    await expect(provisioning.updateAccount(newId('acct'), { active: false })).rejects.toBeInstanceOf(DirectoryRecordNotFoundError);
  });
});

describe('API keys', () => {
  it('shows the key once and stores only the hash of its secret, with the scopes in contract order', async () => {
    const { user } = await userWithWorkspace();
    const created = await provisioning.createApiKey({ userId: user.id, scopes: ['publish', 'read'] });
    const parsed = parseApiKey(created.key);
    expect(parsed?.id).toBe(created.record.id);
    const stored = await directory.apiKeys.getApiKey(created.record.id);
    expect(stored).toMatchObject({ userId: user.id, scopes: ['read', 'publish'], revokedAt: null });
    expect(secretMatches(parsed?.secret ?? '', stored?.secretHash ?? '')).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(parsed?.secret);
    expect((await provisioning.createApiKey({ userId: user.id })).record.scopes).toEqual(['read', 'write', 'publish', 'media']);
  });

  it('refuses empty or unknown scopes and unknown users', async () => {
    const { user } = await userWithWorkspace();
    await expect(provisioning.createApiKey({ userId: user.id, scopes: [] })).rejects.toMatchObject({ param: 'scopes' });
    await expect(provisioning.createApiKey({ userId: user.id, scopes: ['admin' as 'read'] })).rejects.toMatchObject({ param: 'scopes' });
    await expect(provisioning.createApiKey({ userId: newId('usr') })).rejects.toMatchObject({ code: 'user_not_found' });
  });

  it('revokes a key', async () => {
    const { user } = await userWithWorkspace();
    const created = await provisioning.createApiKey({ userId: user.id });
    expect(await provisioning.revokeApiKey(created.record.id)).toEqual({ id: created.record.id, revokedAt: '2026-11-21T09:30:00.000Z' });
    expect((await directory.apiKeys.getApiKey(created.record.id))?.revokedAt).toBe('2026-11-21T09:30:00.000Z');
  });
});

describe('the demo seed', () => {
  it('makes an active user with one workspace, three accounts and a key with every scope', async () => {
    const seed = await seedDemo(provisioning);
    const user = await directory.users.getUser(seed.userId);
    expect(user).toMatchObject({ active: true, monthlyPostAllowance: 1000, workspaceIds: [seed.workspaceId] });
    const accounts = await directory.accounts.listAccounts(seed.userId, { workspaceId: seed.workspaceId });
    expect(accounts.map((account) => account.platform).sort()).toEqual(['instagram', 'linkedin', 'x']);
    expect(new Set(accounts.map((account) => account.id))).toEqual(new Set(Object.values(seed.accountIds)));
    for (const account of accounts) expect(account).toMatchObject({ tokenHealth: 'healthy', sandbox: 'ok', active: true });
    const parsed = parseApiKey(seed.apiKey);
    expect((await directory.apiKeys.getApiKey(parsed?.id ?? ''))?.scopes).toEqual(['read', 'write', 'publish', 'media']);
  });
});
