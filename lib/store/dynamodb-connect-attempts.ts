/**
 * Connect attempts (lib/use-cases/ports/connect.ts) in the sessions table beside the sign-ins under way:
 * `CONNECT#<sha256(state)>`, with a TTL an hour past the attempt's own expiry (DynamoDB deletes expired items
 * late and unpredictably, so the code checks `expiresAt` itself; the TTL only clears abandoned
 * attempts). Taking an attempt is one DeleteItem returning the old item, so two callbacks with the
 * same state can never both get it.
 */
import { DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { CONNECT_KINDS, type ConnectAttempt, type ConnectAttemptStore, type ConnectKind } from '../use-cases/ports/connect.js';
import { documentClient } from './dynamo-client.js';
import { SESSIONS_TABLE } from './tables.js';

const TTL_GRACE_SECONDS = 3600;

function key(stateHash: string): { pk: string } {
  return { pk: `CONNECT#${stateHash}` };
}

function toAttempt(item: Record<string, unknown>): ConnectAttempt | null {
  const text = (field: string): string | null => (typeof item[field] === 'string' ? (item[field] as string) : null);
  const kind = text('kind');
  const fields = ['stateHash', 'userId', 'sessionHash', 'workspaceId', 'codeVerifier', 'createdAt', 'expiresAtIso'].map(text);
  if (kind === null || !(CONNECT_KINDS as readonly string[]).includes(kind) || fields.some((value) => value === null)) return null;
  const [stateHash, userId, sessionHash, workspaceId, codeVerifier, createdAt, expiresAt] = fields as string[];
  return {
    stateHash: stateHash as string,
    userId: userId as string,
    sessionHash: sessionHash as string,
    workspaceId: workspaceId as string,
    kind: kind as ConnectKind,
    codeVerifier: codeVerifier as string,
    reconnectAccountId: text('reconnectAccountId'),
    createdAt: createdAt as string,
    expiresAt: expiresAt as string,
  };
}

export class DynamoDbConnectAttemptStore implements ConnectAttemptStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(SESSIONS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async put(attempt: ConnectAttempt): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...key(attempt.stateHash),
          type: 'connect_attempt',
          stateHash: attempt.stateHash,
          userId: attempt.userId,
          sessionHash: attempt.sessionHash,
          workspaceId: attempt.workspaceId,
          kind: attempt.kind,
          codeVerifier: attempt.codeVerifier,
          reconnectAccountId: attempt.reconnectAccountId ?? undefined,
          createdAt: attempt.createdAt,
          expiresAtIso: attempt.expiresAt,
          expiresAt: Math.floor(Date.parse(attempt.expiresAt) / 1000) + TTL_GRACE_SECONDS,
        },
        // 256 random bits: a collision is a bug, never overwrite.
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async take(stateHash: string): Promise<ConnectAttempt | null> {
    if (!/^[0-9a-f]{64}$/.test(stateHash)) return null;
    const out = await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: key(stateHash), ReturnValues: 'ALL_OLD' }));
    return out.Attributes ? toAttempt(out.Attributes) : null;
  }
}
