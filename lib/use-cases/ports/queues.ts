import type { Queue } from '../../domain/queue.js';

/** An account's queue and the slots its posts have taken (lib/store/dynamodb-queue-store.ts). */
export interface QueueStore {
  /** The stored queue; null when the account never had one (an empty queue in UTC). One GetItem. */
  getQueue(accountId: string): Promise<Queue | null>;
  /** The stored queues of these accounts (absent: none stored). One BatchGetItem. */
  getQueues(accountIds: readonly string[]): Promise<Map<string, Queue>>;
  /** Replaces the queue; moves no post already scheduled. */
  putQueue(queue: Queue, now: Date): Promise<void>;
  /** The instants (UTC ms) in [from, until] taken by a post: one strongly consistent Query. */
  takenSlots(accountId: string, fromMs: number, untilMs: number): Promise<Set<number>>;
}
