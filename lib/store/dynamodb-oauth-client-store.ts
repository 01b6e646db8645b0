/**
 * Assistants registered by dynamic client registration (RFC 7591), in the oauth table:
 * pk = CLIENT#<clientId>. Clients identified by a metadata document are not stored: their
 * document is fetched when they ask for authorization (lib/oauth/client-metadata-fetcher.ts).
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { OAuthClient, OAuthClientStore } from '../oauth/model.js';
import { documentClient } from './dynamo-client.js';
import { OAUTH_TABLE } from './tables.js';

export class DynamoDbOAuthClientStore implements OAuthClientStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(OAUTH_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async putClient(client: OAuthClient): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: `CLIENT#${client.clientId}`, ...Object.fromEntries(Object.entries(client).filter(([, value]) => value !== null)) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getClient(clientId: string): Promise<OAuthClient | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: `CLIENT#${clientId}` } }));
    if (!out.Item) return null;
    const { clientName, clientUri, redirectUris, kind, createdAt } = out.Item as Record<string, unknown>;
    return {
      clientId,
      clientName: String(clientName),
      clientUri: typeof clientUri === 'string' ? clientUri : null,
      redirectUris: Array.isArray(redirectUris) ? redirectUris.map(String) : [],
      kind: kind === 'metadata_document' ? 'metadata_document' : 'registered',
      createdAt: String(createdAt),
    };
  }
}
