/**
 * The directory store against DynamoDB Local, on the shared directory table that the test global
 * setup builds from lib/store/tables.ts. Every test makes its own users (random ids), so tests
 * share the table without seeing each other's records.
 */
import { type BatchGetItemCommandInput, type BatchGetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError } from '../../lib/domain/directory-errors.js';
import type { ApiKeyRecord, MediaItem, User, Workspace } from '../../lib/domain/model.js';
import { newId } from '../../lib/domain/ids.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { accountFixture } from '../support/account-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const tableName = sharedTables.directory ?? '';
const raw = dynamoDbClientFor(dynamodbEndpoint);
const documentClient = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const store = directoryStores({ tableName, client: documentClient });

afterAll(() => raw.destroy());

function user(overrides: Partial<User> = {}): User {
  return {
    id: newId('usr'),
    email: 'someone@example.test',
    active: true,
    monthlyPostAllowance: 100,
    workspaceIds: [],
    createdAt: '2026-11-21T09:00:00.000Z',
    ...overrides,
  };
}

const account = accountFixture;

async function userWithWorkspace(): Promise<{ user: User; workspace: Workspace }> {
  const owner = user();
  await store.users.putUser(owner);
  const workspace: Workspace = { id: newId('ws'), userId: owner.id, name: 'Main', createdAt: '2026-11-21T09:00:00.000Z' };
  await store.workspaces.putWorkspace(workspace);
  return { user: owner, workspace };
}

async function rawItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  return (await documentClient.send(new GetCommand({ TableName: tableName, Key: { pk, sk } }))).Item;
}

describe('users', () => {
  it('stores a user and reads it back', async () => {
    const created = user({ email: 'a@example.test', monthlyPostAllowance: 7, active: false });
    await store.users.putUser(created);
    expect(await store.users.getUser(created.id)).toEqual(created);
    expect(await store.users.getUser(newId('usr'))).toBeNull();
  });

  it('refuses to overwrite an existing user', async () => {
    const created = user();
    await store.users.putUser(created);
    await expect(store.users.putUser({ ...created, email: 'other@example.test' })).rejects.toBeInstanceOf(DirectoryRecordExistsError);
    expect((await store.users.getUser(created.id))?.email).toBe(created.email);
  });

  it('updates only the fields given and returns the user after the update', async () => {
    const created = user({ monthlyPostAllowance: 10 });
    await store.users.putUser(created);
    expect(await store.users.updateUser(created.id, { active: false })).toEqual({ ...created, active: false });
    expect(await store.users.updateUser(created.id, { monthlyPostAllowance: 0 })).toEqual({ ...created, active: false, monthlyPostAllowance: 0 });
    expect(await store.users.updateUser(created.id, {})).toEqual({ ...created, active: false, monthlyPostAllowance: 0 });
  });

  it('does not create a user by updating one that does not exist', async () => {
    const missing = newId('usr');
    await expect(store.users.updateUser(missing, { active: true })).rejects.toMatchObject({ code: 'user_not_found' });
    await expect(store.users.updateUser(missing, {})).rejects.toBeInstanceOf(DirectoryRecordNotFoundError);
    expect(await store.users.getUser(missing)).toBeNull();
  });
});

describe('workspaces', () => {
  it('lists a new workspace on its owner in the same write, and finds it by id', async () => {
    const owner = user();
    await store.users.putUser(owner);
    const first: Workspace = { id: newId('ws'), userId: owner.id, name: 'One', createdAt: '2026-11-21T09:00:00.000Z' };
    const second: Workspace = { ...first, id: newId('ws'), name: 'Two' };
    await store.workspaces.putWorkspace(first);
    await store.workspaces.putWorkspace(second);
    expect((await store.users.getUser(owner.id))?.workspaceIds).toEqual([first.id, second.id]);
    expect(await store.workspaces.getWorkspace(first.id)).toEqual(first);
    expect(await rawItem(`USER#${owner.id}`, `WORKSPACE#${second.id}`)).toMatchObject({ name: 'Two', userId: owner.id });
    expect(await store.workspaces.getWorkspace(newId('ws'))).toBeNull();
  });

  it('writes nothing when the owner does not exist', async () => {
    const workspace: Workspace = { id: newId('ws'), userId: newId('usr'), name: 'Orphan', createdAt: '2026-11-21T09:00:00.000Z' };
    await expect(store.workspaces.putWorkspace(workspace)).rejects.toMatchObject({ code: 'user_not_found' });
    expect(await store.workspaces.getWorkspace(workspace.id)).toBeNull();
    expect(await rawItem(`USER#${workspace.userId}`, `WORKSPACE#${workspace.id}`)).toBeUndefined();
    expect(await store.users.getUser(workspace.userId)).toBeNull();
  });

  it('refuses a workspace id that exists, leaving the owner unchanged', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    await expect(store.workspaces.putWorkspace({ ...workspace, name: 'Again' })).rejects.toBeInstanceOf(DirectoryRecordExistsError);
    expect((await store.users.getUser(owner.id))?.workspaceIds).toEqual([workspace.id]);
  });
});

describe('accounts', () => {
  it('reads an account back without anything that is not part of it', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const created = account({ userId: owner.id, workspaceId: workspace.id }, { sandbox: 'flaky', accountType: 'organization' });
    await store.accounts.putAccount(created);
    expect(await store.accounts.getAccount(created.id)).toEqual(created);
    const withoutSandbox = account({ userId: owner.id, workspaceId: workspace.id });
    await store.accounts.putAccount(withoutSandbox);
    expect(await store.accounts.getAccount(withoutSandbox.id)).toEqual(withoutSandbox);
    expect(await store.accounts.getAccount(newId('acct'))).toBeNull();
    await expect(store.accounts.putAccount(created)).rejects.toBeInstanceOf(DirectoryRecordExistsError);
  });

  it("lists a user's accounts, oldest connection first, and only theirs", async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const other = await userWithWorkspace();
    const later = account({ userId: owner.id, workspaceId: workspace.id }, { connectedAt: '2026-11-21T10:00:00.000Z' });
    const earlier = account({ userId: owner.id, workspaceId: workspace.id }, { connectedAt: '2026-11-20T10:00:00.000Z', platform: 'instagram' });
    const foreign = account({ userId: other.user.id, workspaceId: other.workspace.id });
    for (const item of [later, earlier, foreign]) await store.accounts.putAccount(item);
    expect(await store.accounts.listAccounts(owner.id, {})).toEqual([earlier, later]);
    expect(await store.accounts.listAccounts(other.user.id, {})).toEqual([foreign]);
    expect(await store.accounts.listAccounts(newId('usr'), {})).toEqual([]);
  });

  it('orders accounts connected at the same moment by id, the same way every time', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const same = Array.from({ length: 5 }, () => account({ userId: owner.id, workspaceId: workspace.id }));
    for (const item of same) await store.accounts.putAccount(item);
    const ids = same.map((item) => item.id).sort();
    expect((await store.accounts.listAccounts(owner.id, {})).map((item) => item.id)).toEqual(ids);
  });

  it('filters by workspace, even when one workspace id is a prefix of another', async () => {
    const owner = user();
    await store.users.putUser(owner);
    const short: Workspace = { id: newId('ws'), userId: owner.id, name: 'Short', createdAt: '2026-11-21T09:00:00.000Z' };
    const long: Workspace = { ...short, id: `${short.id}X`, name: 'Long' };
    await store.workspaces.putWorkspace(short);
    await store.workspaces.putWorkspace(long);
    const inShort = account({ userId: owner.id, workspaceId: short.id });
    const inLong = account({ userId: owner.id, workspaceId: long.id });
    await store.accounts.putAccount(inShort);
    await store.accounts.putAccount(inLong);
    expect(await store.accounts.listAccounts(owner.id, { workspaceId: short.id })).toEqual([inShort]);
    expect(await store.accounts.listAccounts(owner.id, { workspaceId: long.id })).toEqual([inLong]);
    expect(await store.accounts.listAccounts(owner.id, { workspaceId: newId('ws') })).toEqual([]);
  });

  it('follows the Query pages to the end', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const many = Array.from({ length: 7 }, (_, index) =>
      account({ userId: owner.id, workspaceId: workspace.id }, { connectedAt: `2026-11-21T09:00:0${index}.000Z` }),
    );
    await Promise.all(many.map((item) => store.accounts.putAccount(item)));
    const paged = directoryStores({ tableName, client: documentClient, queryPageSize: 2 });
    expect(await paged.accounts.listAccounts(owner.id, {})).toEqual(many);
    expect(await paged.accounts.listAccounts(owner.id, { workspaceId: workspace.id })).toEqual(many);
  });

  it('reads many accounts at once, beyond one BatchGetItem, skipping ids that do not exist', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const many = Array.from({ length: 130 }, () => account({ userId: owner.id, workspaceId: workspace.id }));
    for (let start = 0; start < many.length; start += 25) {
      await Promise.all(many.slice(start, start + 25).map((item) => store.accounts.putAccount(item)));
    }
    const missing = newId('acct');
    const requested = [...many.map((item) => item.id), missing, many[0]?.id ?? ''];
    const found = await store.accounts.getAccounts(requested);
    expect(found.size).toBe(130);
    expect(found.has(missing)).toBe(false);
    for (const item of many) expect(found.get(item.id)).toEqual(item);
    expect((await store.accounts.getAccounts([])).size).toBe(0);
  });

  it('retries the keys DynamoDB leaves unprocessed', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const items = Array.from({ length: 5 }, () => account({ userId: owner.id, workspaceId: workspace.id }));
    for (const item of items) await store.accounts.putAccount(item);
    // DynamoDB returns part of a batch as UnprocessedKeys when throttled; DynamoDB Local never
    // does, so this client makes it: each BatchGetItem reads two keys and hands back the rest.
    const throttled = dynamoDbClientFor(dynamodbEndpoint);
    let calls = 0;
    throttled.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'BatchGetItemCommand') return next(args);
        calls += 1;
        const input = args.input as BatchGetItemCommandInput;
        const request = input.RequestItems?.[tableName];
        const keys = request?.Keys ?? [];
        const result = await next({ ...args, input: { ...input, RequestItems: { [tableName]: { ...request, Keys: keys.slice(0, 2) } } } });
        const output = result.output as BatchGetItemCommandOutput;
        output.UnprocessedKeys = keys.length > 2 ? { [tableName]: { ...request, Keys: keys.slice(2) } } : {};
        return result;
      },
      { step: 'initialize', name: 'simulateThrottling' },
    );
    const slowStore = directoryStores({ tableName, client: DynamoDBDocumentClient.from(throttled) });
    const found = await slowStore.accounts.getAccounts(items.map((item) => item.id));
    expect([...found.keys()].sort()).toEqual(items.map((item) => item.id).sort());
    expect(calls).toBe(3);
    throttled.destroy();
  });

  it('updates named fields of an existing account only', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const created = account({ userId: owner.id, workspaceId: workspace.id }, { sandbox: 'ok' });
    await store.accounts.putAccount(created);
    const updated = await store.accounts.updateAccount(created.id, { tokenHealth: 'needs_reauth', sandbox: 'refuse' });
    expect(updated).toEqual({ ...created, tokenHealth: 'needs_reauth', sandbox: 'refuse' });
    expect(await store.accounts.listAccounts(owner.id, {})).toEqual([updated]);
    await store.accounts.setTokenHealth(created.id, 'refresh_failed');
    expect((await store.accounts.getAccount(created.id))?.tokenHealth).toBe('refresh_failed');

    const missing = newId('acct');
    await expect(store.accounts.updateAccount(missing, { active: false })).rejects.toMatchObject({ code: 'account_not_found' });
    await expect(store.accounts.setTokenHealth(missing, 'healthy')).rejects.toMatchObject({ code: 'account_not_found' });
    expect(await store.accounts.getAccount(missing)).toBeNull();
  });
});

describe('credentials', () => {
  it('keeps tokens in an item of their own that no account read or index carries', async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const created = account({ userId: owner.id, workspaceId: workspace.id });
    await store.accounts.putAccount(created);
    const credentials = {
      accountId: created.id,
      accessTokenEncrypted: 'local.v1.sealed-access',
      refreshTokenEncrypted: null,
      accessTokenExpiresAt: '2026-11-21T11:00:00.000Z',
    };
    await store.accounts.putCredentials(credentials);
    expect(await store.accounts.getCredentials(created.id)).toEqual({ ...credentials, revision: expect.any(String) });
    expect(await store.accounts.getCredentials(newId('acct'))).toBeNull();

    const raw = await rawItem(`ACCOUNT#${created.id}`, 'CREDENTIALS');
    expect(raw).not.toHaveProperty('gsi1pk');
    expect(raw).not.toHaveProperty('gsi1sk');
    const reads = [await store.accounts.getAccount(created.id), (await store.accounts.getAccounts([created.id])).get(created.id), ...(await store.accounts.listAccounts(owner.id, {}))];
    for (const read of reads) expect(JSON.stringify(read)).not.toContain('sealed-access');
    const indexed = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'byOwner',
        KeyConditionExpression: 'gsi1pk = :owner',
        ExpressionAttributeValues: { ':owner': `USER#${owner.id}` },
      }),
    );
    expect(indexed.Items?.map((item) => item.sk)).toEqual(['ACCOUNT']);

    const rotated = { ...credentials, accessTokenEncrypted: 'local.v1.rotated', refreshTokenEncrypted: 'local.v1.refresh' };
    await store.accounts.putCredentials(rotated);
    expect(await store.accounts.getCredentials(created.id)).toEqual({ ...rotated, revision: expect.any(String) });
  });

  it("reads an account and its credentials together for the publish worker, each as its own record", async () => {
    const { user: owner, workspace } = await userWithWorkspace();
    const created = account({ userId: owner.id, workspaceId: workspace.id }, { sandbox: 'ok' });
    await store.accounts.putAccount(created);
    expect(await store.accounts.getAccountWithCredentials(created.id)).toEqual({ account: created, credentials: null });

    const credentials = {
      accountId: created.id,
      accessTokenEncrypted: 'local.v1.sealed-access',
      refreshTokenEncrypted: 'local.v1.sealed-refresh',
      accessTokenExpiresAt: '2026-11-21T11:00:00.000Z',
    };
    await store.accounts.putCredentials(credentials);
    const both = await store.accounts.getAccountWithCredentials(created.id);
    expect(both).toEqual({ account: created, credentials: { ...credentials, revision: expect.any(String) } });
    expect(JSON.stringify(both.account)).not.toContain('sealed');

    // Strongly consistent: a rotation stored a moment ago is what the next read returns.
    const rotated = { ...credentials, refreshTokenEncrypted: 'local.v1.rotated-refresh' };
    await store.accounts.putCredentials(rotated);
    const after = (await store.accounts.getAccountWithCredentials(created.id)).credentials;
    expect(after).toEqual({ ...rotated, revision: expect.any(String) });
    // Every write of the tokens is a new revision (a refresh begun before it cannot overwrite it).
    expect(after?.revision).not.toBe(both.credentials?.revision);

    expect(await store.accounts.getAccountWithCredentials(newId('acct'))).toEqual({ account: null, credentials: null });
  });
});

describe('API keys', () => {
  function apiKey(userId: string): ApiKeyRecord {
    return {
      id: 'k'.repeat(4) + newId('usr').slice(4, 16),
      userId,
      secretHash: 'a'.repeat(64),
      scopes: ['read', 'publish'],
      createdAt: '2026-11-21T09:00:00.000Z',
      revokedAt: null,
    };
  }

  it('stores a key and revokes it once, keeping the first revocation time', async () => {
    const key = apiKey(newId('usr'));
    await store.apiKeys.putApiKey(key);
    expect(await store.apiKeys.getApiKey(key.id)).toEqual(key);
    expect(await store.apiKeys.revokeApiKey(key.id, '2026-11-21T10:00:00.000Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(await store.apiKeys.revokeApiKey(key.id, '2026-11-22T10:00:00.000Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(await store.apiKeys.getApiKey(key.id)).toEqual({ ...key, revokedAt: '2026-11-21T10:00:00.000Z' });
  });

  it('knows no key it was not given', async () => {
    const missing = apiKey(newId('usr')).id;
    expect(await store.apiKeys.getApiKey(missing)).toBeNull();
    await expect(store.apiKeys.revokeApiKey(missing, '2026-11-21T10:00:00.000Z')).rejects.toMatchObject({ code: 'api_key_not_found' });
    expect(await store.apiKeys.getApiKey(missing)).toBeNull();
  });
});

describe('media library', () => {
  it('stores media items and reads them in one batch', async () => {
    const userId = newId('usr');
    const items: MediaItem[] = [
      { id: newId('med'), userId, url: 'http://m/1.png', contentType: 'image/png', sizeBytes: 10, durationSeconds: null, objectKey: `${userId}/1.png`, createdAt: '2026-11-21T09:00:00.000Z' },
      { id: newId('med'), userId, url: 'http://m/2.mp4', contentType: 'video/mp4', sizeBytes: 20, durationSeconds: 12.5, objectKey: `${userId}/2.mp4`, createdAt: '2026-11-21T09:00:00.000Z' },
    ];
    for (const item of items) await store.media.putMediaItem(item);
    const found = await store.media.getMediaItems([...items.map((item) => item.id), newId('med')]);
    expect([...found.values()].sort((a, b) => a.sizeBytes - b.sizeBytes)).toEqual(items);
  });
});
