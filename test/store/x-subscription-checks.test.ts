/**
 * The daily read of X accounts' subscription (lib/use-cases/x-subscription-checks.ts) against
 * DynamoDB Local (the shared directory table of the test global setup, its byTokenExpiry index)
 * and the sandbox X over HTTP. The clock is set in the year 2000 and the accounts were last read
 * in 1999, so the index's Queries see only this file's accounts, never the other files' (read in
 * the present). Tokens are in memory: how they are read and refreshed is access-tokens' own test.
 */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomToken } from '../../lib/domain/ids.js';
import type { Account, XSubscription } from '../../lib/domain/model.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { directoryKeys } from '../../lib/store/directory-table.js';
import { XSubscriptionChecks } from '../../lib/use-cases/x-subscription-checks.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { accountFixture } from '../support/account-fixture.js';
import { SandboxAccounts } from '../support/platform-sandbox.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tableName = sharedTables.directory ?? '';
const accounts = new DynamoDbAccountStore({ tableName, client });
const NOW = new Date('2000-01-01T12:00:00.000Z');
const HOUR_MS = 3_600_000;

const sandboxAccounts = new SandboxAccounts();
const subscriptions = new Map<string, XSubscription>();
const tokens = new Map<string, string>();
const owner = { userId: `user_${randomToken(20)}`, workspaceId: `ws_${randomToken(20)}` };
let sandbox: SandboxPlatforms;
let x: XClient;

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({
    port: 0,
    accountBehaviour: sandboxAccounts.accountBehaviour,
    xSubscription: async (accountId) => subscriptions.get(accountId) ?? 'None',
  });
  x = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x });
});

afterAll(async () => {
  await sandbox?.stop();
  raw.destroy();
});

function checks(at: Date): XSubscriptionChecks {
  return new XSubscriptionChecks({
    store: accounts,
    accounts,
    tokens: { accessToken: async (account) => tokens.get(account.id) ?? '' },
    x,
    clock: { now: () => new Date(at) },
    log: { warn: () => undefined },
  });
}

/** An X account on the sandbox, last read at `lastRead`, stored as a connect stores it. */
async function connectX(lastRead: string, token: 'valid' | 'revoked' = 'valid', overrides: Partial<Account> = {}): Promise<Account> {
  const made = sandboxAccounts.create('x', 'ok', { platformUserId: '1234567890', handle: '@sub', accountType: 'personal' });
  const account = accountFixture(owner, { id: made.account.id, connectedAt: lastRead, xSubscription: 'None', xSubscriptionCheckedAt: lastRead, ...overrides });
  // A revoked token: X answers 401 to users/me.
  tokens.set(account.id, token === 'valid' ? made.accessToken : `revoked-${randomToken(8)}`);
  await accounts.putAccount(account);
  return account;
}

async function entryOf(accountId: string): Promise<{ expiryPk?: string; expirySk?: string }> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: directoryKeys.account(accountId), ConsistentRead: true }));
  return { expiryPk: out.Item?.expiryPk as string | undefined, expirySk: out.Item?.expirySk as string | undefined };
}

describe('the daily read of X subscriptions', () => {
  it('reads an account last read a day ago, stores what X says and moves its entry to the read; a fresh one waits', async () => {
    const stale = await connectX('1999-12-31T11:00:00.000Z');
    const fresh = await connectX('2000-01-01T11:00:00.000Z');
    subscriptions.set(stale.id, 'Premium');
    subscriptions.set(fresh.id, 'Premium');

    const result = await checks(NOW).checkDue();
    expect(result.read).toBe(1);
    expect(await accounts.getAccount(stale.id)).toMatchObject({ xSubscription: 'Premium', xSubscriptionCheckedAt: NOW.toISOString() });
    expect(await entryOf(stale.id)).toEqual({ expiryPk: 'x-subscription', expirySk: `${NOW.toISOString()}#${stale.id}` });
    expect((await accounts.getAccount(fresh.id))?.xSubscription).toBe('None');
    // Read once: the same minute finds nothing more; a day after the fresh one's read, it is read.
    expect((await checks(NOW).checkDue()).read).toBe(0);
    expect((await checks(new Date('2000-01-02T11:00:00.000Z')).checkDue()).read).toBe(1);
    expect((await accounts.getAccount(fresh.id))?.xSubscription).toBe('Premium');
  });

  it('an account that must reconnect or is disconnected leaves the index; one X refuses is tried again an hour later, not every minute', async () => {
    const reauth = await connectX('1999-12-20T00:00:00.000Z');
    const refused = await connectX('1999-12-20T00:00:00.000Z', 'revoked');
    await accounts.setTokenHealth(reauth.id, 'needs_reauth');

    const first = await checks(NOW).checkDue();
    expect(first).toMatchObject({ dropped: 1, postponed: 1 });
    expect(await entryOf(reauth.id)).toEqual({ expiryPk: undefined, expirySk: undefined });
    expect((await entryOf(refused.id)).expiryPk).toBe('x-subscription');

    expect((await checks(new Date(NOW.getTime() + 30 * 60_000)).checkDue()).postponed).toBe(0);
    expect((await checks(new Date(NOW.getTime() + HOUR_MS + 60_000)).checkDue()).postponed).toBe(1);
  });

  it('an account without an entry (connected before the daily check) joins it at its next read, at publish', async () => {
    const older = await connectX('1999-12-20T00:00:00.000Z');
    await client.send(new UpdateCommand({ TableName: tableName, Key: directoryKeys.account(older.id), UpdateExpression: 'REMOVE expiryPk, expirySk' }));
    expect(await entryOf(older.id)).toEqual({ expiryPk: undefined, expirySk: undefined });
    await accounts.setXSubscription(older.id, 'Premium', NOW);
    expect(await entryOf(older.id)).toEqual({ expiryPk: 'x-subscription', expirySk: `${NOW.toISOString()}#${older.id}` });
  });

  it('only X accounts that can refresh are checked: a token that cannot be refreshed keeps its expiry warning entry', async () => {
    const cannotRefresh = await connectX('1999-12-20T00:00:00.000Z', 'valid', { tokenExpiresAt: '2000-01-20T00:00:00.000Z' });
    expect((await entryOf(cannotRefresh.id)).expiryPk).toBe('expiry');
    // Read at publish: the subscription is stored, the expiry warning entry stays as it was.
    await accounts.setXSubscription(cannotRefresh.id, 'Premium', NOW);
    expect((await entryOf(cannotRefresh.id)).expiryPk).toBe('expiry');
    expect((await accounts.getAccount(cannotRefresh.id))?.xSubscription).toBe('Premium');
  });
});
