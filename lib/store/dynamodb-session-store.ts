/**
 * Settings sessions and sign-ins under way, in the sessions table (layout in tables.ts). Keys are
 * SHA-256 hashes of the cookie values, never the values. Every read checks expiresAt itself:
 * DynamoDB's TTL deletes expired items up to days late, and an expired session must end on time.
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { LoginTransaction, SessionRecord, SessionStore } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { SESSIONS_TABLE } from './tables.js';

type Item = Record<string, unknown>;

const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function str(item: Item, field: string): string {
  const value = item[field];
  if (typeof value !== 'string') throw new Error(`Session item has a missing or malformed ${field}`);
  return value;
}

function expiry(item: Item): Date {
  const value = item.expiresAt;
  if (typeof value !== 'number') throw new Error('Session item has a missing or malformed expiresAt');
  return new Date(value * 1000);
}

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
          pk: `SESSION#${idHash}`,
          userId: session.userId,
          csrfToken: session.csrfToken,
          createdAt: session.createdAt,
          expiresAt: epochSeconds(session.expiresAt),
        },
        // A fresh random id never collides; refusing an overwrite makes that an error, not a takeover.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSession(idHash: string, now: Date): Promise<SessionRecord | null> {
    // Consistent: a session ended by sign-out in another request must be over at once.
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: `SESSION#${idHash}` }, ConsistentRead: true }));
    const item = out.Item;
    if (!item) return null;
    const expiresAt = expiry(item);
    if (expiresAt.getTime() <= now.getTime()) return null;
    return { userId: str(item, 'userId'), csrfToken: str(item, 'csrfToken'), createdAt: str(item, 'createdAt'), expiresAt };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk: `SESSION#${idHash}` } }));
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
