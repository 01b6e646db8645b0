/**
 * The account writes of connecting from settings (lib/use-cases/ports/connect.ts), in the directory table
 * beside the items of dynamodb-account-store.ts (same ACCOUNT/CREDENTIALS layout, written by its
 * accountItem and credentialsItem). One more item per connected identity makes "connect again = update, never a
 * duplicate" hold under concurrency:
 *
 *   CONNECTION#<wsId>#<platform>#<accountType>#<platformUserId> / CONNECTION   accountId
 *
 * create  one transaction: credentials, account (must not exist), connection guard (must not exist)
 * update  one transaction: credentials replaced, account fields set (the account must exist)
 * remove  one transaction: account, credentials and guard deleted
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import type { Account, AccountCredentials, AccountType } from '../domain/model.js';
import type { AccountConnectionStore, AccountConnectionWrite } from '../use-cases/ports/connect.js';
import { DirectoryTable, directoryKeys, withoutUndefined, type DirectoryTableOptions } from './directory-table.js';
import { accountItem, credentialsItem as revisedCredentialsItem, accountCheckKeys } from './dynamodb-account-store.js';

const connectionKey = directoryKeys.connection;
const keys = directoryKeys;

/** Connected or reconnected tokens start a new revision, so a refresh that read the old ones cannot overwrite them. */
function credentialsItem(credentials: AccountCredentials): Record<string, unknown> {
  return revisedCredentialsItem(credentials, randomUUID());
}

export class DynamoDbAccountConnectionStore implements AccountConnectionStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    const table = DirectoryTable.from(options);
    this.tableName = table.name;
    this.client = table.client;
  }

  async findConnected(input: { workspaceId: string; platform: string; accountType: AccountType; platformUserId: string }): Promise<string | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: connectionKey(input), ConsistentRead: true }));
    return typeof out.Item?.accountId === 'string' ? out.Item.accountId : null;
  }

  async create(write: AccountConnectionWrite): Promise<boolean> {
    const { account, credentials } = write;
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: credentialsItem(credentials) } },
            { Put: { TableName: this.tableName, Item: withoutUndefined(accountItem(account)), ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...connectionKey(account), type: 'connection', accountId: account.id, userId: account.userId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[2]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async update(write: AccountConnectionWrite): Promise<void> {
    const { account, credentials } = write;
    // What a reconnect read again besides the identity (X's subscription), when it read it.
    const subscription = account.xSubscription === undefined ? '' : ', xSubscription = :subscription, xSubscriptionCheckedAt = :checked';
    // The token's end as stored now, and its byTokenExpiry entry set or removed with it (sparse index).
    const expiry = accountCheckKeys(account);
    const extra = `${subscription}, tokenExpiresAt = :expiresAt${expiry ? ', expiryPk = :expiryPk, expirySk = :expirySk' : ''}`;
    const remove = expiry ? '' : ' REMOVE expiryPk, expirySk';
    const extraValues = {
      ...(account.xSubscription === undefined ? {} : { ':subscription': account.xSubscription, ':checked': account.xSubscriptionCheckedAt ?? null }),
      ':expiresAt': account.tokenExpiresAt ?? null,
      ...(expiry ? { ':expiryPk': expiry.expiryPk, ':expirySk': expiry.expirySk } : {}),
    };
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.tableName, Item: credentialsItem(credentials), ConditionExpression: 'attribute_not_exists(pk) OR accountId = :id', ExpressionAttributeValues: { ':id': account.id } } },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.account(account.id),
                UpdateExpression: `SET #name = :name, handle = :handle, tokenHealth = :health, active = :active${extra}${remove}`,
                ConditionExpression: 'attribute_exists(pk) AND userId = :user',
                ExpressionAttributeNames: { '#name': 'name' },
                ExpressionAttributeValues: { ':name': account.name, ':handle': account.handle, ':health': account.tokenHealth, ':active': account.active, ':user': account.userId, ...extraValues },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') {
        throw new DirectoryRecordNotFoundError('account', account.id, { cause: error });
      }
      throw error;
    }
  }

  async remove(account: Account): Promise<void> {
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: this.tableName, Key: keys.account(account.id) } },
          { Delete: { TableName: this.tableName, Key: keys.credentials(account.id) } },
          // Only this account's guard: the identity may have been connected again as another account since.
          {
            Delete: {
              TableName: this.tableName,
              Key: connectionKey(account),
              ConditionExpression: 'attribute_not_exists(pk) OR accountId = :id',
              ExpressionAttributeValues: { ':id': account.id },
            },
          },
        ],
      }),
    );
  }
}
