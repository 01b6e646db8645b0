/**
 * A grant's whole life in the oauth table (lib/store/tables.ts): the authorization request waiting
 * for consent, the one-use code, the grant, and its access and refresh tokens. Codes and tokens are
 * keyed by their SHA-256; the clear value is never stored.
 *
 *   consent   answerPendingAuthorization: DELETE request (must exist) + PUT code      one transaction
 *   exchange  redeemCode: UPDATE code SET redeemedGrantId (must exist, unused, unexpired)
 *             + PUT grant + PUT access + refresh                                        one transaction
 *             (the used code stays a day, so a second exchange is seen and revokes the grant)
 *   refresh   rotateRefreshToken: UPDATE old refresh SET usedAt (must be unused)
 *             + PUT new access + refresh                                              one transaction
 *   request   getToken + getGrant (consistent read: a revocation counts at once)       two GetItems
 *   settings  listGrants: Query byUser; revokeGrant: UPDATE SET revokedAt IF the user's
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { requireEnv } from '../config.js';
import type { AuthorizationCode, Grant, GrantStore, NewTokens, PendingAuthorization, TokenRecord } from '../oauth/model.js';
import { isMcpScope, type McpScope } from '../oauth/scopes.js';
import { documentClient } from './dynamo-client.js';
import { OAUTH_TABLE } from './tables.js';

type Item = Record<string, unknown>;

const BY_USER_INDEX = 'byUser';
/** A revoked grant stays listed (as revoked) this long, then its item expires. */
const REVOKED_GRANT_KEPT_SECONDS = 30 * 24 * 3600;
/** A used code is kept this long: a second exchange within it revokes the grant (RFC 6749 4.1.2). */
export const USED_CODE_KEPT_SECONDS = 24 * 3600;
/** A grant's item outlives its last refresh token; refreshing pushes it back. */
export const GRANT_IDLE_SECONDS = 30 * 24 * 3600;

const requestKey = (requestId: string) => ({ pk: `REQUEST#${requestId}` });
const codeKey = (codeHash: string) => ({ pk: `CODE#${codeHash}` });
const grantKey = (grantId: string) => ({ pk: `GRANT#${grantId}` });
const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}` });

function scopesOf(value: unknown): McpScope[] {
  return Array.isArray(value) ? value.filter((scope): scope is McpScope => typeof scope === 'string' && isMcpScope(scope)) : [];
}
const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Null fields are left out: the conditions test `attribute_not_exists(revokedAt)` / `(usedAt)`. */
function withoutNulls(record: object): Item {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null));
}

function grantItem(grant: Grant, expiresAt: number): Item {
  return {
    ...grantKey(grant.grantId),
    ...withoutNulls(grant),
    userPk: `USER#${grant.userId}`,
    userSk: `${grant.createdAt}#${grant.grantId}`,
    expiresAt,
  };
}

function toGrant(item: Item): Grant {
  return {
    grantId: String(item.grantId),
    userId: String(item.userId),
    clientId: String(item.clientId),
    clientName: String(item.clientName),
    clientUri: stringOrNull(item.clientUri),
    scopes: scopesOf(item.scopes),
    resource: String(item.resource),
    createdAt: String(item.createdAt),
    revokedAt: stringOrNull(item.revokedAt),
  };
}

function toToken(item: Item): TokenRecord {
  return {
    tokenHash: String(item.tokenHash),
    kind: item.kind === 'refresh' ? 'refresh' : 'access',
    grantId: String(item.grantId),
    scopes: scopesOf(item.scopes),
    resource: String(item.resource),
    clientId: String(item.clientId),
    expiresAt: Number(item.expiresAt),
    usedAt: stringOrNull(item.usedAt),
  };
}

export class DynamoDbGrantStore implements GrantStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(OAUTH_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async putPendingAuthorization(pending: PendingAuthorization): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...requestKey(pending.requestId), ...withoutNulls(pending) } }));
  }

  async getPendingAuthorization(requestId: string): Promise<PendingAuthorization | null> {
    const item = await this.get(requestKey(requestId), true);
    if (!item) return null;
    return {
      requestId,
      userId: stringOrNull(item.userId),
      clientId: String(item.clientId),
      clientName: String(item.clientName),
      clientUri: stringOrNull(item.clientUri),
      redirectUri: String(item.redirectUri),
      codeChallenge: String(item.codeChallenge),
      resource: String(item.resource),
      scopes: scopesOf(item.scopes),
      state: stringOrNull(item.state),
      formToken: String(item.formToken),
      expiresAt: Number(item.expiresAt),
    };
  }

  async bindPendingAuthorization(requestId: string, userId: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestKey(requestId),
          UpdateExpression: 'SET userId = :userId',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(userId) OR userId = :userId)',
          ExpressionAttributeValues: { ':userId': userId },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async answerPendingAuthorization(requestId: string, userId: string, code: AuthorizationCode | null): Promise<boolean> {
    const remove = {
      TableName: this.tableName,
      Key: requestKey(requestId),
      ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
      ExpressionAttributeValues: { ':userId': userId },
    };
    try {
      if (code === null) {
        await this.client.send(new DeleteCommand(remove));
      } else {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [{ Delete: remove }, { Put: { TableName: this.tableName, Item: { ...codeKey(code.codeHash), ...withoutNulls(code) } } }],
          }),
        );
      }
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || error instanceof TransactionCanceledException) return false;
      throw error;
    }
  }

  async getCode(codeHash: string): Promise<AuthorizationCode | null> {
    const item = await this.get(codeKey(codeHash), true);
    if (!item) return null;
    return {
      codeHash,
      userId: String(item.userId),
      clientId: String(item.clientId),
      clientName: String(item.clientName),
      clientUri: stringOrNull(item.clientUri),
      redirectUri: String(item.redirectUri),
      codeChallenge: String(item.codeChallenge),
      resource: String(item.resource),
      scopes: scopesOf(item.scopes),
      expiresAt: Number(item.expiresAt),
      redeemedGrantId: stringOrNull(item.redeemedGrantId),
    };
  }

  async redeemCode(codeHash: string, grant: Grant, tokens: NewTokens, nowSeconds: number): Promise<Grant | null> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: codeKey(codeHash),
                UpdateExpression: 'SET redeemedGrantId = :grantId, expiresAt = :kept',
                // TTL deletion lags: an expired code is refused by this condition too.
                ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now AND attribute_not_exists(redeemedGrantId)',
                ExpressionAttributeValues: { ':now': nowSeconds, ':grantId': grant.grantId, ':kept': nowSeconds + USED_CODE_KEPT_SECONDS },
              },
            },
            { Put: { TableName: this.tableName, Item: grantItem(grant, nowSeconds + GRANT_IDLE_SECONDS), ConditionExpression: 'attribute_not_exists(pk)' } },
            ...this.tokenPuts(tokens),
          ],
        }),
      );
      return grant;
    } catch (error) {
      if (error instanceof TransactionCanceledException) return null;
      throw error;
    }
  }

  async getToken(tokenHash: string): Promise<TokenRecord | null> {
    const item = await this.get(tokenKey(tokenHash), false);
    return item ? toToken(item) : null;
  }

  async getGrant(grantId: string): Promise<Grant | null> {
    const item = await this.get(grantKey(grantId), true);
    return item ? toGrant(item) : null;
  }

  async rotateRefreshToken(used: TokenRecord, tokens: NewTokens, now: Date): Promise<boolean> {
    const nowSeconds = Math.floor(now.getTime() / 1000);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: tokenKey(used.tokenHash),
                UpdateExpression: 'SET usedAt = :now',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt)',
                ExpressionAttributeValues: { ':now': now.toISOString() },
              },
            },
            {
              // The grant lives as long as it is used; a revoked one is never refreshed.
              Update: {
                TableName: this.tableName,
                Key: grantKey(used.grantId),
                UpdateExpression: 'SET expiresAt = :expires',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
                ExpressionAttributeValues: { ':expires': nowSeconds + GRANT_IDLE_SECONDS },
              },
            },
            ...this.tokenPuts(tokens),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException) return false;
      throw error;
    }
  }

  async listGrants(userId: string): Promise<Grant[]> {
    const grants: Grant[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_USER_INDEX,
          KeyConditionExpression: 'userPk = :userPk',
          ExpressionAttributeValues: { ':userPk': `USER#${userId}` },
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) grants.push(toGrant(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return grants;
  }

  async revokeGrant(userId: string, grantId: string, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: grantKey(grantId),
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now), expiresAt = :expires',
          ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ':userId': userId,
            ':expires': Math.floor(now.getTime() / 1000) + REVOKED_GRANT_KEPT_SECONDS,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private tokenPuts(tokens: NewTokens) {
    return [tokens.access, tokens.refresh].map((token) => ({
      Put: { TableName: this.tableName, Item: { ...tokenKey(token.tokenHash), ...withoutNulls(token) }, ConditionExpression: 'attribute_not_exists(pk)' },
    }));
  }

  private async get(key: { pk: string }, consistentRead: boolean): Promise<Item | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: consistentRead }));
    return (out.Item as Item | undefined) ?? null;
  }
}
