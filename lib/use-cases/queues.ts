/**
 * An account's queue (beyond-v2.md "Queues and time zones"): GET and PUT /accounts/{id}/queue,
 * GET /accounts/{id}/queue/next, and the choice of a slot for each target of a `queue: true`
 * create (lib/use-cases/create-posts.ts). The rules are lib/domain/queue.ts; the slots taken are
 * slot items written by the posts' own transaction (lib/store/dynamodb-queue-store.ts).
 *
 * DynamoDB requests per queued target: the queue (GetItem) and the slots taken (Query), both per
 * account and in parallel across accounts; nothing else is read, and the slot items ride in the
 * create's one transaction.
 */
import { ApiError } from '../domain/errors.js';
import type { Account, Post } from '../domain/model.js';
import { checkQueryParameters } from '../domain/query-parameters.js';
import {
  NEXT_SLOTS_DEFAULT,
  NEXT_SLOTS_MAX,
  emptyQueue,
  freeSlots,
  isSlotInstant,
  nextFreeSlot,
  parseQueueInput,
  queueWindow,
  type Queue,
  type QueueSlot,
  type QueueSlotVerdict,
} from '../domain/queue.js';
import type { Caller } from '../domain/caller.js';
import type { AccountReader } from './ports/accounts.js';
import type { Clock } from './ports/clock.js';
import type { QueueStore } from './ports/queues.js';

/** The longest account id looked up; anything longer cannot be an id. */
const MAX_ACCOUNT_ID_LENGTH = 256;

export interface QueueView {
  object: 'queue';
  accountId: string;
  timeZone: string;
  slots: QueueSlot[];
}

export interface NextSlotsView {
  object: 'list';
  slots: { scheduledFor: string; local: string }[];
}

export interface QueueDeps {
  accounts: Pick<AccountReader, 'getAccount'>;
  queues: QueueStore;
  clock: Clock;
}

function queueView(queue: Queue): QueueView {
  return { object: 'queue', accountId: queue.accountId, timeZone: queue.timeZone, slots: queue.slots.map((slot) => ({ ...slot })) };
}

/** The caller's account (any of its workspaces, connected or not); another's or none is not found. */
async function ownAccount(deps: QueueDeps, caller: Caller, accountId: string): Promise<Account> {
  const account = accountId.length <= MAX_ACCOUNT_ID_LENGTH ? await deps.accounts.getAccount(accountId) : null;
  if (!account || account.userId !== caller.userId) {
    throw new ApiError('account_not_found', 'No account with this id is connected by the caller.', { param: 'id' });
  }
  return account;
}

export class AccountQueues {
  constructor(private readonly deps: QueueDeps) {}

  async get(caller: Caller, accountId: string): Promise<QueueView> {
    await ownAccount(this.deps, caller, accountId);
    return queueView((await this.deps.queues.getQueue(accountId)) ?? emptyQueue(accountId));
  }

  /** Replaces the queue; posts already scheduled keep their times. */
  async put(caller: Caller, accountId: string, body: unknown): Promise<QueueView> {
    const input = parseQueueInput(body);
    if (!input.ok) throw new ApiError(input.code, input.message, { param: input.param });
    await ownAccount(this.deps, caller, accountId);
    const queue: Queue = { accountId, timeZone: input.timeZone, slots: input.slots };
    await this.deps.queues.putQueue(queue, this.deps.clock.now());
    return queueView(queue);
  }

  async next(caller: Caller, accountId: string, query: Record<string, string>): Promise<NextSlotsView> {
    const count = parseNextSlotsQuery(query);
    await ownAccount(this.deps, caller, accountId);
    const now = this.deps.clock.now();
    const queue = (await this.deps.queues.getQueue(accountId)) ?? emptyQueue(accountId);
    const taken = queue.slots.length === 0 ? new Set<number>() : await takenIn(this.deps.queues, accountId, now);
    return {
      object: 'list',
      slots: freeSlots(queue, now, taken, count).map((slot) => ({ scheduledFor: new Date(slot.at).toISOString(), local: slot.local })),
    };
  }
}

export function parseNextSlotsQuery(query: Record<string, string>): number {
  checkQueryParameters(query, ['count'], 'GET /accounts/{id}/queue/next accepts count.');
  const raw = query.count;
  if (raw === undefined) return NEXT_SLOTS_DEFAULT;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > NEXT_SLOTS_MAX) {
    throw new ApiError('invalid_query', `count must be a whole number from 1 to ${NEXT_SLOTS_MAX}.`, { param: 'count' });
  }
  return Number(raw);
}

function takenIn(queues: QueueStore, accountId: string, now: Date): Promise<Set<number>> {
  const { fromMs, untilMs } = queueWindow(now);
  return queues.takenSlots(accountId, fromMs, untilMs);
}

/**
 * The queues of some accounts and the slots taken in each, read once for a create; `choose` then
 * gives each account its earliest free slot, and `lost` records a slot another request took since
 * (the create's transaction said so), so the next choice skips it without reading again.
 */
export class QueueChoices {
  private constructor(
    private readonly queues: QueueStore,
    private readonly state: Map<string, { queue: Queue; taken: Set<number> }>,
  ) {}

  static async read(queues: QueueStore, accountIds: readonly string[], now: Date): Promise<QueueChoices> {
    const entries = await Promise.all(
      [...new Set(accountIds)].map(async (accountId) => {
        const queue = (await queues.getQueue(accountId)) ?? emptyQueue(accountId);
        const taken = queue.slots.length === 0 ? new Set<number>() : await takenIn(queues, accountId, now);
        return [accountId, { queue, taken }] as const;
      }),
    );
    return new QueueChoices(queues, new Map(entries));
  }

  /** A post moving within its own queue: its own slot counts as free for it. */
  release(accountId: string, scheduledFor: string): void {
    this.state.get(accountId)?.taken.delete(Date.parse(scheduledFor));
  }

  choose(accountId: string, now: Date): QueueSlotVerdict {
    const entry = this.state.get(accountId);
    if (!entry) return { ok: false, reason: 'queue_empty' };
    return nextFreeSlot(entry.queue, now, entry.taken);
  }

  /**
   * Reads the account's taken slots again (one Query): the request that won this slot has
   * committed, and so may others since the first read, so the next choice skips them all instead
   * of losing to each in turn.
   */
  async lost(accountId: string, scheduledFor: string, now: Date): Promise<void> {
    const entry = this.state.get(accountId);
    if (!entry) return;
    entry.taken = await takenIn(this.queues, accountId, now);
    entry.taken.add(Date.parse(scheduledFor));
  }
}

export const QUEUE_REJECTION_MESSAGES = {
  queue_empty: "The account's queue has no slots: set its posting times (PUT /accounts/{id}/queue).",
  queue_full: "Every slot of the account's queue within the next 30 days is taken: add slots or give a scheduledFor.",
} as const;

/**
 * The slot a stored post moves to with `queue: true` (PATCH of a scheduled post, a draft's publish):
 * its account's earliest free one, its own current slot counting as free; 400 queue_empty /
 * queue_full (param `queue`) when there is none.
 */
export async function slotForPost(queues: QueueStore, post: Post, now: Date): Promise<string> {
  const choices = await QueueChoices.read(queues, [post.accountId], now);
  if (post.queueSlot === true) choices.release(post.accountId, post.scheduledFor);
  const verdict = choices.choose(post.accountId, now);
  if (!verdict.ok) throw new ApiError(verdict.reason, QUEUE_REJECTION_MESSAGES[verdict.reason], { status: 400, param: 'queue' });
  return new Date(verdict.slot.at).toISOString();
}

/**
 * The accounts among `accountIds` whose queue has a slot exactly at `scheduledFor`, an explicit
 * time in the future: their posts take that slot's item (a slot is free when no scheduled post of
 * the account is due then, beyond-v2.md), so a queued post never lands on an explicit one. One
 * BatchGetItem of the queues, and only for a time on a whole minute after now (no slot is
 * anything else): a create at any other time reads nothing more.
 */
export async function accountsWithSlotAt(queues: QueueStore, accountIds: readonly string[], scheduledFor: Date, now: Date): Promise<Set<string>> {
  const at = scheduledFor.getTime();
  if (accountIds.length === 0 || at % 60_000 !== 0 || at <= now.getTime()) return new Set();
  const stored = await queues.getQueues(accountIds);
  return new Set([...stored.values()].filter((queue) => isSlotInstant(queue, at)).map((queue) => queue.accountId));
}
