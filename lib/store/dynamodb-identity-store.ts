/**
 * Which user an OpenID Connect identity (issuer + subject) signs in as, and the first sign-in
 * that creates the user with their first workspace. Directory table items (tables.ts):
 *   IDENTITY#<sha256(issuer \n subject)> / IDENTITY   userId, issuer, subject, email
 * plus the user's PROFILE and the workspace's two items, written exactly as
 * dynamodb-directory-store.ts writes them (putUser, putWorkspace), all in ONE transaction: a
 * user never exists without the identity that reaches it, nor an identity without its user.
 */
import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { IdentityStore, NewUserWithWorkspace, OidcIdentity } from '../use-cases/settings/ports.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

function identityKey(identity: Pick<OidcIdentity, 'issuer' | 'subject'>): { pk: string; sk: string } {
  // Hashed so that neither part's characters can shape the key; a newline cannot occur in a URL.
  const digest = createHash('sha256').update(`${identity.issuer}\n${identity.subject}`).digest('hex');
  return { pk: `IDENTITY#${digest}`, sk: 'IDENTITY' };
}

export class DynamoDbIdentityStore implements IdentityStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async findUserId(identity: OidcIdentity): Promise<string | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: identityKey(identity), ConsistentRead: true }));
    const userId = out.Item?.userId;
    return typeof userId === 'string' ? userId : null;
  }

  /** Makes an identity sign in as an existing user (the local demo login; an operator linking a login). */
  async linkIdentity(identity: OidcIdentity, userId: string): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...identityKey(identity), type: 'identity', userId, issuer: identity.issuer, subject: identity.subject, email: identity.email },
      }),
    );
  }

  async createUser(identity: OidcIdentity, created: NewUserWithWorkspace): Promise<string> {
    const { user, workspace } = created;
    const workspaceAttributes = { type: 'workspace', id: workspace.id, userId: user.id, name: workspace.name, createdAt: workspace.createdAt };
    const notExists = 'attribute_not_exists(pk)';
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: { ...identityKey(identity), type: 'identity', userId: user.id, issuer: identity.issuer, subject: identity.subject, email: identity.email },
                ConditionExpression: notExists,
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  pk: `USER#${user.id}`,
                  sk: 'PROFILE',
                  type: 'user',
                  id: user.id,
                  email: user.email,
                  active: user.active,
                  monthlyPostAllowance: user.monthlyPostAllowance,
                  workspaceIds: [workspace.id],
                  createdAt: user.createdAt,
                },
                ConditionExpression: notExists,
              },
            },
            { Put: { TableName: this.tableName, Item: { pk: `USER#${user.id}`, sk: `WORKSPACE#${workspace.id}`, ...workspaceAttributes }, ConditionExpression: notExists } },
            { Put: { TableName: this.tableName, Item: { pk: `WORKSPACE#${workspace.id}`, sk: 'WORKSPACE', ...workspaceAttributes }, ConditionExpression: notExists } },
          ],
        }),
      );
      return user.id;
    } catch (error) {
      // Another first sign-in of the same identity won: sign in as the user it created.
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
        const winner = await this.findUserId(identity);
        if (winner) return winner;
      }
      throw error;
    }
  }
}
