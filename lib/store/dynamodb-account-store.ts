/**
 * Connected accounts and their platform credentials in the directory table: ACCOUNT#<id>/ACCOUNT
 * (with the byOwner index keys) and ACCOUNT#<id>/CREDENTIALS (layout in lib/store/tables.ts).
 *
 * Account reads never carry a token: tokens live in the CREDENTIALS item, which no index projects
 * and no account read touches. Only the publish worker reads both items together
 * (getAccountWithCredentials), and it gets them back as two separate records.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ACCOUNT_TYPES, SANDBOX_BEHAVIOURS, TOKEN_HEALTH, X_SUBSCRIPTIONS, type Account, type AccountCredentials, type TokenHealth } from '../domain/model.js';
import type { AccountAdmin, AccountReader, AccountWithCredentialsReader, CredentialStore } from '../use-cases/ports/accounts.js';
import type { AccountStore } from '../use-cases/settings/ports.js';
import { DirectoryTable, directoryKeys, isConditionFailure, readDirectoryItem, writtenIfConditionHolds, type DirectoryTableOptions, type Item } from './directory-table.js';
import { countQuery } from './count-query.js';
import { nullableString } from './item-schema.js';
import { expiryWarningAt } from '../domain/token-expiry.js';
import { xSubscriptionLastRead } from '../domain/x-subscription-check.js';
import { DirectoryRecordNotFoundError } from '../domain/directory-errors.js';

/** Declared in tables.ts; the integration tests run against a table built from that declaration. */
const BY_OWNER_INDEX = 'byOwner';

const ACCOUNT_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  workspaceId: v.string(),
  platform: v.string(),
  name: v.string(),
  handle: v.string(),
  accountType: v.picklist(ACCOUNT_TYPES),
  active: v.boolean(),
  tokenHealth: v.picklist(TOKEN_HEALTH),
  connectedAt: v.string(),
  platformUserId: v.string(),
  sandbox: v.optional(v.picklist(SANDBOX_BEHAVIOURS)),
  xSubscription: v.optional(v.nullable(v.string())),
  tokenExpiresAt: v.optional(v.nullable(v.string())),
  xSubscriptionCheckedAt: v.optional(v.nullable(v.string())),
  sandboxXSubscription: v.optional(v.picklist(X_SUBSCRIPTIONS)),
});

const CREDENTIALS_ITEM = v.object({
  accountId: v.string(),
  accessTokenEncrypted: v.string(),
  refreshTokenEncrypted: nullableString,
  accessTokenExpiresAt: nullableString,
  /** Absent on items written before revisions existed. */
  revision: v.optional(v.nullable(v.string()), null),
});

export function toAccount(item: Item): Account {
  const { sandbox, xSubscription, xSubscriptionCheckedAt, sandboxXSubscription, tokenExpiresAt, ...account } = readDirectoryItem(ACCOUNT_ITEM, item);
  // Optional fields only when present, so an account reads back equal to the one written.
  return {
    ...account,
    ...(sandbox !== undefined ? { sandbox } : {}),
    ...(xSubscription !== undefined ? { xSubscription } : {}),
    ...(xSubscriptionCheckedAt !== undefined ? { xSubscriptionCheckedAt } : {}),
    ...(sandboxXSubscription !== undefined ? { sandboxXSubscription } : {}),
    ...(tokenExpiresAt !== undefined ? { tokenExpiresAt } : {}),
  };
}

function toCredentials(item: Item): AccountCredentials {
  return readDirectoryItem(CREDENTIALS_ITEM, item);
}

export function credentialsItem(credentials: AccountCredentials, revision: string): Item {
  return {
    ...directoryKeys.credentials(credentials.accountId),
    type: 'credentials',
    accountId: credentials.accountId,
    accessTokenEncrypted: credentials.accessTokenEncrypted,
    refreshTokenEncrypted: credentials.refreshTokenEncrypted,
    accessTokenExpiresAt: credentials.accessTokenExpiresAt,
    revision,
  };
}

/** The credentials are still at `revision` (null: written before revisions existed). */
function revisionCondition(revision: string | null): { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> } {
  return revision === null
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revision)' }
    : { ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': revision } };
}

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

const BY_TOKEN_EXPIRY_INDEX = 'byTokenExpiry';
const EXPIRY_PARTITION = 'expiry';
/** X accounts' daily subscription reads share byTokenExpiry under their own partition (tables.ts). */
const X_SUBSCRIPTION_PARTITION = 'x-subscription';

/**
 * The byTokenExpiry keys of an account (sparse), an entry for what the scheduled runs must check
 * next: its expiry warning while its token cannot be refreshed and it does not warn yet (the
 * sweeper); else, for X, the daily read of its subscription, keyed by its last read (the metrics
 * collector, which holds X's credentials). An item has one entry, so an X account that cannot
 * refresh (X grants refresh tokens with offline.access, which connect always asks) is read at
 * publish only. Null: the item must carry none.
 */
export function accountCheckKeys(
  account: Pick<Account, 'id' | 'platform' | 'active' | 'tokenHealth' | 'tokenExpiresAt' | 'xSubscriptionCheckedAt' | 'connectedAt'>,
): { expiryPk: string; expirySk: string } | null {
  if (account.tokenExpiresAt && account.tokenHealth === 'healthy') {
    return { expiryPk: EXPIRY_PARTITION, expirySk: `${expiryWarningAt(account.tokenExpiresAt).toISOString()}#${account.id}` };
  }
  if (account.platform === 'x' && !account.tokenExpiresAt && account.active && (account.tokenHealth === 'healthy' || account.tokenHealth === 'expiring')) {
    return xSubscriptionCheckKeys(account.id, xSubscriptionLastRead(account));
  }
  return null;
}

function xSubscriptionCheckKeys(accountId: string, lastRead: string): { expiryPk: string; expirySk: string } {
  return { expiryPk: X_SUBSCRIPTION_PARTITION, expirySk: `${new Date(lastRead).toISOString()}#${accountId}` };
}

/** The account ids of byTokenExpiry entries, with the entry each was found at. */
function entriesOf(items: Record<string, unknown>[] | undefined): { accountId: string; expirySk: string }[] {
  return (items ?? []).flatMap((item) => {
    const sk = item.expirySk;
    return typeof sk === 'string' ? [{ accountId: sk.slice(sk.indexOf('#') + 1), expirySk: sk }] : [];
  });
}

/** The byOwner index keys of an account: GET /accounts is one Query on them. */
function ownerIndexKeys(account: Pick<Account, 'userId' | 'workspaceId' | 'id'>): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `USER#${account.userId}`, gsi1sk: `${account.workspaceId}#${account.id}` };
}

export function accountItem(account: Account): Item {
  return {
    ...directoryKeys.account(account.id),
    ...ownerIndexKeys(account),
    type: 'account',
    id: account.id,
    userId: account.userId,
    workspaceId: account.workspaceId,
    platform: account.platform,
    name: account.name,
    handle: account.handle,
    accountType: account.accountType,
    active: account.active,
    tokenHealth: account.tokenHealth,
    connectedAt: account.connectedAt,
    platformUserId: account.platformUserId,
    sandbox: account.sandbox,
    xSubscription: account.xSubscription,
    xSubscriptionCheckedAt: account.xSubscriptionCheckedAt,
    sandboxXSubscription: account.sandboxXSubscription,
    tokenExpiresAt: account.tokenExpiresAt,
    ...accountCheckKeys(account),
  };
}

/** Plain code-point order: the same on every machine, unlike localeCompare. */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class DynamoDbAccountStore implements AccountReader, AccountWithCredentialsReader, CredentialStore, AccountAdmin, AccountStore {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const item = await this.table.getItem(directoryKeys.account(accountId));
    return item ? toAccount(item) : null;
  }

  /**
   * One Query on byOwner, following LastEvaluatedKey until the end (the list is not paginated in
   * the API, and a user has few accounts). Order: connectedAt ascending, then id, so the list is
   * stable and newly connected accounts come last.
   */
  async listAccounts(userId: string, filter: { workspaceId?: string }): Promise<Account[]> {
    const values: Record<string, string> = { ':owner': `USER#${userId}` };
    let condition = 'gsi1pk = :owner';
    if (filter.workspaceId !== undefined) {
      values[':workspace'] = `${filter.workspaceId}#`;
      condition += ' AND begins_with(gsi1sk, :workspace)';
    }
    const accounts: Account[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: values,
          ExclusiveStartKey: startKey,
          Limit: this.table.queryPageSize,
        }),
      );
      for (const item of page.Items ?? []) accounts.push(toAccount(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return accounts.sort((a, b) => compareCodePoints(a.connectedAt, b.connectedAt) || compareCodePoints(a.id, b.id));
  }

  async getAccounts(accountIds: string[]): Promise<Map<string, Account>> {
    const items = await this.table.batchGet(accountIds.map(directoryKeys.account));
    return new Map(
      items.map((item) => {
        const account = toAccount(item);
        return [account.id, account] as const;
      }),
    );
  }

  /**
   * The publish worker's read: the account and its credentials in one strongly consistent Query
   * on their shared partition (half the requests of two GetItems, and one read unit for both
   * while they fit in 4 KB). Consistent for the credentials' sake, as getCredentials.
   */
  async getAccountWithCredentials(accountId: string): Promise<{ account: Account | null; credentials: AccountCredentials | null }> {
    const accountKey = directoryKeys.account(accountId);
    const credentialsKey = directoryKeys.credentials(accountId);
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': accountKey.pk },
        ConsistentRead: true,
      }),
    );
    let account: Account | null = null;
    let credentials: AccountCredentials | null = null;
    for (const item of out.Items ?? []) {
      if (item.sk === accountKey.sk) account = toAccount(item);
      else if (item.sk === credentialsKey.sk) credentials = toCredentials(item);
    }
    return { account, credentials };
  }

  async getCredentials(accountId: string): Promise<AccountCredentials | null> {
    // Consistent: right after a refresh stored a rotated refresh token, the old one is useless.
    const item = await this.table.getItem(directoryKeys.credentials(accountId), true);
    return item ? toCredentials(item) : null;
  }

  async putCredentials(credentials: AccountCredentials): Promise<void> {
    await this.table.client.send(new PutCommand({ TableName: this.table.name, Item: credentialsItem(credentials, randomUUID()) }));
  }

  /*
   * Token refresh (lib/use-cases/access-tokens.ts). X rotates refresh tokens, so two workers
   * refreshing one account at once would have one of them refused. The credentials item carries a
   * revision and a short refresh lock: one worker refreshes, the others wait for its revision; every
   * token write is conditional on the revision it replaces.
   */

  async lockRefresh(accountId: string, input: { revision: string | null; now: Date; until: Date }): Promise<boolean> {
    const current = revisionCondition(input.revision);
    return writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: directoryKeys.credentials(accountId),
          UpdateExpression: 'SET refreshLockedUntil = :until',
          ConditionExpression: `${current.ConditionExpression} AND (attribute_not_exists(refreshLockedUntil) OR refreshLockedUntil < :now)`,
          ExpressionAttributeValues: { ...current.ExpressionAttributeValues, ':until': input.until.toISOString(), ':now': input.now.toISOString() },
        }),
      ),
    );
  }

  async replaceRefreshed(next: AccountCredentials, expectedRevision: string | null): Promise<boolean> {
    return this.conditionalTransaction([
      { Put: { TableName: this.table.name, Item: credentialsItem(next, randomUUID()), ...revisionCondition(expectedRevision) } },
      {
        Update: {
          TableName: this.table.name,
          Key: directoryKeys.account(next.accountId),
          UpdateExpression: 'SET tokenHealth = :healthy',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':healthy': 'healthy' },
        },
      },
    ]);
  }

  async markRefreshFailed(accountId: string, revision: string | null): Promise<boolean> {
    return this.conditionalTransaction([
      { Update: { TableName: this.table.name, Key: directoryKeys.credentials(accountId), UpdateExpression: 'REMOVE refreshLockedUntil', ...revisionCondition(revision) } },
      {
        Update: {
          TableName: this.table.name,
          Key: directoryKeys.account(accountId),
          UpdateExpression: 'SET tokenHealth = :failed',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':failed': 'refresh_failed' },
        },
      },
    ]);
  }

  /** False when the condition of the first item failed (the credentials moved on); anything else throws. */
  private async conditionalTransaction(items: TransactItems): Promise<boolean> {
    try {
      await this.table.client.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void> {
    await this.table.updateExisting('account', accountId, directoryKeys.account(accountId), { tokenHealth });
  }

  async putAccount(account: Account): Promise<void> {
    await this.table.putNew('account', account.id, accountItem(account));
  }

  async updateAccount(
    accountId: string,
    changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name' | 'sandboxXSubscription' | 'xSubscription' | 'xSubscriptionCheckedAt'>>,
  ): Promise<Account> {
    const item = await this.table.updateExisting('account', accountId, directoryKeys.account(accountId), {
      tokenHealth: changes.tokenHealth,
      sandbox: changes.sandbox,
      active: changes.active,
      name: changes.name,
      sandboxXSubscription: changes.sandboxXSubscription,
      xSubscription: changes.xSubscription,
      xSubscriptionCheckedAt: changes.xSubscriptionCheckedAt,
    });
    return toAccount(item);
  }

  /**
   * The sweeper: accounts whose expiry warning time has come (byTokenExpiry, expirySk <= now), at
   * most `limit`. Keys only; markExpiring does the rest.
   */
  async listExpiryWarningsDue(now: Date, limit: number): Promise<{ accountId: string; expirySk: string }[]> {
    return this.listChecksDue(EXPIRY_PARTITION, now, limit);
  }

  /** One partition of byTokenExpiry up to `upTo`, oldest first, keys only. */
  private async listChecksDue(partition: string, upTo: Date, limit: number): Promise<{ accountId: string; expirySk: string }[]> {
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: BY_TOKEN_EXPIRY_INDEX,
        KeyConditionExpression: 'expiryPk = :pk AND expirySk <= :upTo',
        ExpressionAttributeValues: { ':pk': partition, ':upTo': `${upTo.toISOString()}#~` },
        Limit: limit,
      }),
    );
    return entriesOf(out.Items);
  }

  /**
   * Marks the account `expiring` and takes it out of byTokenExpiry, only while it is still at that
   * entry and healthy; an account no longer healthy (needs_reauth, ...) just leaves the index.
   * True when it became expiring (its change makes the account.token_health_changed event).
   */
  async markExpiring(accountId: string, expirySk: string): Promise<boolean> {
    const key = directoryKeys.account(accountId);
    const becameExpiring = await writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: key,
          UpdateExpression: 'SET tokenHealth = :expiring REMOVE expiryPk, expirySk',
          ConditionExpression: 'expirySk = :sk AND tokenHealth = :healthy',
          ExpressionAttributeValues: { ':expiring': 'expiring', ':sk': expirySk, ':healthy': 'healthy' },
        }),
      ),
    );
    if (becameExpiring) return true;
    await writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({ TableName: this.table.name, Key: key, UpdateExpression: 'REMOVE expiryPk, expirySk', ConditionExpression: 'expirySk = :sk', ExpressionAttributeValues: { ':sk': expirySk } }),
      ),
    );
    return false;
  }

  /**
   * New tokens' end for an account (admin CLI): tokenExpiresAt and its byTokenExpiry entry set
   * (or removed when null), with tokenHealth back to healthy as after a reconnect. Read first:
   * the account's entry depends on its platform (accountCheckKeys).
   */
  async setTokenExpiry(accountId: string, tokenExpiresAt: string | null): Promise<Account> {
    const current = await this.getAccount(accountId);
    if (!current) throw new DirectoryRecordNotFoundError('account', accountId);
    const expiry = accountCheckKeys({ ...current, tokenHealth: 'healthy', tokenExpiresAt });
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: directoryKeys.account(accountId),
          UpdateExpression: expiry
            ? 'SET tokenExpiresAt = :at, tokenHealth = :healthy, expiryPk = :pk, expirySk = :sk'
            : 'SET tokenExpiresAt = :at, tokenHealth = :healthy REMOVE expiryPk, expirySk',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': tokenExpiresAt, ':healthy': 'healthy', ...(expiry ? { ':pk': expiry.expiryPk, ':sk': expiry.expirySk } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toAccount(out.Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new DirectoryRecordNotFoundError('account', accountId, { cause: error });
      throw error;
    }
  }

  /**
   * X's subscription_type as just read (publish, the daily check): what the account's text limit
   * follows. Its daily check's entry moves to this read, and an account without one (connected
   * before the daily check, or taken out of it while it could not be read) joins it; only one that
   * holds another kind of entry (an expiry warning) gets the subscription alone.
   */
  async setXSubscription(accountId: string, xSubscription: string | null, checkedAt: Date): Promise<void> {
    const key = directoryKeys.account(accountId);
    const values = { ':subscription': xSubscription, ':checked': checkedAt.toISOString() };
    const tracked = await writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: key,
          UpdateExpression: 'SET xSubscription = :subscription, xSubscriptionCheckedAt = :checked, expiryPk = :pk, expirySk = :sk',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(expiryPk) OR expiryPk = :pk)',
          ExpressionAttributeValues: { ...values, ':pk': X_SUBSCRIPTION_PARTITION, ':sk': xSubscriptionCheckKeys(accountId, checkedAt.toISOString()).expirySk },
        }),
      ),
    );
    if (tracked) return;
    await this.table.updateExisting('account', accountId, key, { xSubscription, xSubscriptionCheckedAt: checkedAt.toISOString() });
  }

  /**
   * The metrics collector: X accounts whose subscription was last read at or before `readBefore`
   * (byTokenExpiry's X partition, oldest first), at most `limit`. Keys only.
   */
  async listXSubscriptionChecksDue(readBefore: Date, limit: number): Promise<{ accountId: string; expirySk: string }[]> {
    return this.listChecksDue(X_SUBSCRIPTION_PARTITION, readBefore, limit);
  }

  /**
   * An X account's daily check that could not read X (a refused token, X down): the entry moves to
   * `asIfReadAt` while it is still at `expirySk`, so the next runs do not retry it every minute.
   * Null: the account is no longer checked (disconnected, must reconnect) and leaves the index.
   */
  async postponeXSubscriptionCheck(accountId: string, expirySk: string, asIfReadAt: Date | null): Promise<void> {
    await writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: directoryKeys.account(accountId),
          UpdateExpression: asIfReadAt ? 'SET expirySk = :next' : 'REMOVE expiryPk, expirySk',
          ConditionExpression: 'expiryPk = :pk AND expirySk = :sk',
          ExpressionAttributeValues: {
            ':pk': X_SUBSCRIPTION_PARTITION,
            ':sk': expirySk,
            ...(asIfReadAt ? { ':next': xSubscriptionCheckKeys(accountId, asIfReadAt.toISOString()).expirySk } : {}),
          },
        }),
      ),
    );
  }

  /** Settings Overview: the user's accounts counted on byOwner (Select COUNT). */
  async countAccounts(userId: string): Promise<number> {
    return countQuery(this.table.client, {
      TableName: this.table.name,
      IndexName: 'byOwner',
      KeyConditionExpression: 'gsi1pk = :owner',
      ExpressionAttributeValues: { ':owner': `USER#${userId}` },
    });
  }

  /**
   * Settings: deletes the account, its CREDENTIALS item (the encrypted tokens) and its connection
   * guard (dynamodb-account-connections.ts) in one transaction conditioned on the owner; false
   * when it does not exist or is not this user's. A post still scheduled to it fails at publish
   * time like one whose account went away.
   */
  async disconnectAccount(userId: string, accountId: string): Promise<boolean> {
    const item = await this.table.getItem(directoryKeys.account(accountId), true);
    if (!item) return false;
    const account = toAccount(item);
    if (account.userId !== userId) return false;
    try {
      await this.table.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table.name,
                Key: directoryKeys.account(accountId),
                ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
                ExpressionAttributeValues: { ':userId': userId },
              },
            },
            { Delete: { TableName: this.table.name, Key: directoryKeys.credentials(accountId) } },
            // Only this account's guard: the identity may have been connected again as another account since.
            {
              Delete: {
                TableName: this.table.name,
                Key: directoryKeys.connection(account),
                ConditionExpression: 'attribute_not_exists(pk) OR accountId = :id',
                ExpressionAttributeValues: { ':id': accountId },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }
}
