/**
 * Settings sessions and sign-ins under way, in the sessions table (layout in tables.ts). Keys are
 * SHA-256 hashes of the cookie values, never the values. Every read checks expiresAt itself:
 * DynamoDB's TTL deletes expired items up to days late, and an expired session must end on time.
 * A session also carries its user's key on the byUser index (keys only), so "sign out of every
 * other browser" is one Query and a few deletes, never a Scan.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { LoginTransaction, SessionRecord, SessionStore } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { SESSION_KEY_PREFIX, SESSIONS_TABLE } from './tables.js';

type Item = Record<string, unknown>;

const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function str(item: Item, field: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw new Error(`Session item has a missing or malformed ${field}`);
  return value;
}

function expiry(item: Item, field = 'expiresAt'): Date {
  const value = item[field];
  if (typeof value !== 'number') throw new Error(`Session item has a missing or malformed ${field}`);
  return new Date(value * 1000);
}

const BY_USER_INDEX = 'byUser';
const DELETES_AT_ONCE = 10;
const sessionKey = (idHash: string) => ({ pk: `${SESSION_KEY_PREFIX}${idHash}` });

export class DynamoDbSessionStore implements SessionStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(SESSIONS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async putSession(idHash: string, session: SessionRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...sessionKey(idHash),
          userId: session.userId,
          csrfToken: session.csrfToken,
          createdAt: session.createdAt,
          expiresAt: epochSeconds(session.expiresAt),
          idleExpiresAt: epochSeconds(session.idleExpiresAt),
          userPk: `USER#${session.userId}`,
          userSk: `${session.createdAt}#${idHash}`,
        },
        // A fresh random id never collides; refusing an overwrite makes that an error, not a takeover.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSession(idHash: string, now: Date): Promise<SessionRecord | null> {
    // Consistent: a session ended by sign-out in another request must be over at once.
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: sessionKey(idHash), ConsistentRead: true }));
    const item = out.Item;
    if (!item) return null;
    const expiresAt = expiry(item);
    if (expiresAt.getTime() <= now.getTime()) return null;
    // A session from before idle ends were kept is idle since it began.
    const idleExpiresAt = typeof item.idleExpiresAt === 'number' ? expiry(item, 'idleExpiresAt') : new Date(Date.parse(str(item, 'createdAt')));
    return { userId: str(item, 'userId'), csrfToken: str(item, 'csrfToken'), createdAt: str(item, 'createdAt'), expiresAt, idleExpiresAt };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: sessionKey(idHash) }));
  }

  async extendIdle(idHash: string, idleExpiresAt: Date): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: sessionKey(idHash),
          UpdateExpression: 'SET idleExpiresAt = :idle',
          // Never recreate a session that sign-out (or "other browsers") deleted meanwhile.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':idle': epochSeconds(idleExpiresAt) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async deleteOtherSessions(userId: string, keepIdHash: string): Promise<number> {
    const keep = sessionKey(keepIdHash).pk;
    const others: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_USER_INDEX,
          KeyConditionExpression: 'userPk = :userPk',
          ExpressionAttributeValues: { ':userPk': `USER#${userId}` },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) if (typeof item.pk === 'string' && item.pk !== keep) others.push(item.pk);
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    // DeleteItem each (the role has no BatchWriteItem), a few at a time: a user has a handful of sessions.
    for (let start = 0; start < others.length; start += DELETES_AT_ONCE) {
      await Promise.all(others.slice(start, start + DELETES_AT_ONCE).map((pk) => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk } }))));
    }
    return others.length;
  }

  async putLogin(idHash: string, login: LoginTransaction): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: `LOGIN#${idHash}`,
          state: login.state,
          nonce: login.nonce,
          codeVerifier: login.codeVerifier,
          returnTo: login.returnTo,
          expiresAt: epochSeconds(login.expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async takeLogin(idHash: string, now: Date): Promise<LoginTransaction | null> {
    // Delete returning the old item: two callbacks racing with the same cookie get it once.
    const out = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: { pk: `LOGIN#${idHash}` }, ReturnValues: 'ALL_OLD' }),
    );
    const item = out.Attributes;
    if (!item) return null;
    const expiresAt = expiry(item);
    if (expiresAt.getTime() <= now.getTime()) return null;
    return {
      state: str(item, 'state'),
      nonce: str(item, 'nonce'),
      codeVerifier: str(item, 'codeVerifier'),
      returnTo: str(item, 'returnTo'),
      expiresAt,
    };
  }
}
