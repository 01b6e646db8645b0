/**
 * Conditional UpdateItems written together when they come together: the delivery worker's claims,
 * attempt records and cancels (lib/store/dynamodb-webhook-delivery-store.ts), the publish worker's
 * "sent" markers and its outcomes (lib/store/dynamodb-publish-state.ts). A burst's deliveries each
 * need a claim and a record, a burst's posts each a marker right before their create goes out; one
 * by one they are round trips each on a database that is the burst's bottleneck, and one
 * TransactWriteItems of many updates costs DynamoDB a fraction of the same updates sent one by one
 * (npm run bench, `burst`; docs/performance.md).
 *
 * Grouping without waiting: an update asked while fewer than MAX_FLUSHES_IN_FLIGHT writes are out
 * leaves at the end of the current turn of the event loop (with whatever else was asked in that
 * turn: a message's claims all come in one, posts prepared ahead of their second reach their marker
 * together as their timers fire together); one asked while they are all out waits for the first
 * to come back and leaves with everything that queued up meanwhile. An idle worker pays no delay,
 * a busy one writes in fewer, larger requests. A writer whose updates must never wait behind
 * another write (the "sent" markers: a create request waits for its marker) takes no limit.
 *
 * Each update keeps its own condition and its own answer: a transaction is all or nothing, so when DynamoDB cancels it, an update whose condition failed is
 * answered false, and the others are written again together (or, when it was cancelled for another
 * reason, each on its own): exact, whatever else was in the transaction. An update alone in its group is a single UpdateItem (a transactional write costs two
 * write units, so only updates that came together pay it). Two updates of one item never share a
 * transaction (DynamoDB refuses it): the second waits for the next write.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MAX_TRANSACTION_ITEMS } from './dynamodb-limits.js';

/** Writes out at once before further updates wait and group (two: a claim need not wait behind a record). */
const MAX_FLUSHES_IN_FLIGHT = 2;

export interface CoalescedUpdatesOptions {
  /** Writes out at once before further updates wait for one of them (MAX_FLUSHES_IN_FLIGHT unless set). */
  maxFlushesInFlight?: number;
}

/** One conditional update: what UpdateItem takes, and what a transaction's Update action takes too. */
export type ConditionalUpdate = NonNullable<ConstructorParameters<typeof UpdateCommand>[0]> & {
  Key: Record<string, string>;
  UpdateExpression: string;
  ConditionExpression: string;
};

interface Pending {
  update: ConditionalUpdate;
  key: string;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

export class CoalescedUpdates {
  private pending: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  private readonly maxFlushesInFlight: number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    options: CoalescedUpdatesOptions = {},
  ) {
    this.maxFlushesInFlight = options.maxFlushesInFlight ?? MAX_FLUSHES_IN_FLIGHT;
  }

  /** True when the update is written; false when its condition failed. */
  write(update: ConditionalUpdate): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const key = `${update.TableName ?? ''}\u0000${Object.entries(update.Key).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}=${value}`).join('\u0000')}`;
      this.pending.push({ update, key, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxFlushesInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    // One write of each item now; a second update of an item waits for the next flush.
    const seen = new Set<string>();
    const now: Pending[] = [];
    const later: Pending[] = [];
    for (const entry of this.pending) {
      if (seen.has(entry.key)) later.push(entry);
      else {
        seen.add(entry.key);
        now.push(entry);
      }
    }
    this.pending = later;
    if (now.length === 0) return;
    this.inFlight += 1;
    try {
      const chunks: Pending[][] = [];
      for (let start = 0; start < now.length; start += MAX_TRANSACTION_ITEMS) chunks.push(now.slice(start, start + MAX_TRANSACTION_ITEMS));
      await Promise.all(chunks.map((chunk) => (chunk.length === 1 ? this.writeAlone(chunk[0] as Pending) : this.writeTogether(chunk))));
    } finally {
      this.inFlight -= 1;
      this.schedule();
    }
  }

  private async writeTogether(chunk: Pending[]): Promise<void> {
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: chunk.map(({ update }) => ({ Update: update })) }));
      for (const entry of chunk) entry.resolve(true);
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      const refused = chunk.filter((_, index) => reasons[index]?.Code === 'ConditionalCheckFailed');
      for (const entry of refused) entry.resolve(false);
      const others = chunk.filter((_, index) => reasons[index]?.Code !== 'ConditionalCheckFailed');
      // Cancelled for conditions that failed: the others go again together (one post deleted in a
      // burst's group must not turn the other 99 into single writes). Each round answers at least
      // one, so this ends; cancelled for anything else (a conflict), each is written alone.
      if (refused.length > 0 && others.length > 1) await this.writeTogether(others);
      else await Promise.all(others.map((entry) => this.writeAlone(entry)));
    }
  }

  private async writeAlone({ update, resolve, reject }: Pending): Promise<void> {
    try {
      await this.client.send(new UpdateCommand(update));
      resolve(true);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) resolve(false);
      else reject(error);
    }
  }
}
