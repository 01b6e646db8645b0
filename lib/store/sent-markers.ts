/**
 * The publish worker's "sent" markers (PublishStateStore.markCreateSending), written together when
 * they come together. Posts prepared ahead of their second all reach their marker at the due time,
 * in the same turn of the event loop (their timers fire together); each marker asked in that turn
 * is held until the turn ends and then written with the others in one TransactWriteItems of up to
 * 100, instead of one UpdateItem each. That is the only DynamoDB request a burst of posts due at one
 * second waits for before its create requests go out (lib/use-cases/publish-post.ts), and one
 * transaction of many updates costs DynamoDB Local about a quarter of the same updates sent one by
 * one (npm run bench, `burst`).
 *
 * Each marker keeps its own condition (claim and lease held, post not deleted) and its own answer:
 * a transaction is all or nothing, so when DynamoDB cancels it, a marker whose condition failed is
 * answered false, and every other one is written again on its own (exact, whatever else was in the
 * transaction). A marker asked alone is a single UpdateItem, as before: a transactional write costs
 * two write units instead of one, so only markers that came together pay it.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IN_FLIGHT_ATTRIBUTE } from './post-item.js';
import { MAX_TRANSACTION_ITEMS } from './dynamodb-limits.js';


export interface SentMarker {
  postId: string;
  token: string;
  now: Date;
  mediaIds: readonly string[];
}

interface Pending {
  marker: SentMarker;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

/** One marker's update: what UpdateItem takes, and what a transaction's Update action takes too. */
type Update = NonNullable<ConstructorParameters<typeof UpdateCommand>[0]> & { UpdateExpression: string; ConditionExpression: string };

export class SentMarkers {
  private pending: Pending[] = [];

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** True when the marker is written; false when its condition failed (do not send). */
  write(marker: SentMarker): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ marker, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const chunks: Pending[][] = [];
    for (let start = 0; start < batch.length; start += MAX_TRANSACTION_ITEMS) chunks.push(batch.slice(start, start + MAX_TRANSACTION_ITEMS));
    await Promise.all(chunks.map((chunk) => (chunk.length === 1 ? this.writeAlone(chunk[0] as Pending) : this.writeTogether(chunk))));
  }

  private async writeTogether(chunk: Pending[]): Promise<void> {
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: chunk.map(({ marker }) => ({ Update: this.update(marker) })) }));
      for (const entry of chunk) entry.resolve(true);
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      await Promise.all(
        chunk.map((entry, index) => (reasons[index]?.Code === 'ConditionalCheckFailed' ? entry.resolve(false) : this.writeAlone(entry))),
      );
    }
  }

  private async writeAlone({ marker, resolve, reject }: Pending): Promise<void> {
    try {
      await this.client.send(new UpdateCommand(this.update(marker)));
      resolve(true);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) resolve(false);
      else reject(error);
    }
  }

  private update({ postId, token, now, mediaIds }: SentMarker): Update {
    return {
      TableName: this.table,
      Key: { id: postId },
      UpdateExpression:
        `SET platformCreateSentAt = :now, ${IN_FLIGHT_ATTRIBUTE} = if_not_exists(${IN_FLIGHT_ATTRIBUTE}, :now)` +
        (mediaIds.length > 0 ? ', platformCreateMediaIds = :media' : ' REMOVE platformCreateMediaIds'),
      // The lease too: a worker that outlived it (a stalled process) must not send, another may hold the post.
      ConditionExpression: '#status = :scheduled AND attribute_not_exists(deletedAt) AND claimToken = :token AND claimUntil >= :now',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':now': now.toISOString(),
        ':token': token,
        ':scheduled': 'scheduled',
        ...(mediaIds.length > 0 ? { ':media': [...mediaIds] } : {}),
      },
    };
  }
}
