/**
 * After the restart: wait until every post has settled, then hold the service's answers against
 * the sandbox platforms' own record (GET /sandbox/record, which survives the crash):
 *   lost          a post still `scheduled` at the deadline, or `failed` without advice
 *   duplicates    a post that reached its platform more than once (or a platform post nobody asked for)
 *   unknown       `failed` with "check the account" advice: both sandboxes can be asked, so the
 *                 service should have found out
 *   mismatched    published with an id the platform does not hold, or failed while it is live
 *   liveAfterDelete  deleted with deleteFromPlatform=true and still live on the platform
 *   sentAfterCancel  cancelled (softDeleted false, unit refunded) and still sent
 *   allowance     the user's counter against accepted posts minus refunded cancels (and soft-deleted
 *                 posts that never reached their platform, refunded once settled)
 *   thread parts  per X thread (checkThreads): parts duplicated and parts missing
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { dynamoDbClientFor } from '../local/dynamodb-local.js';
import type { StackInfo } from '../local/stack.js';
import { threadOf, type Api, type BurstState, type KnownPost } from './burst.js';
import type { ReceivedRequest } from './receiver.js';

interface RecordedPost {
  id: string;
  text: string;
  mediaIds: string[];
  deletedAt: string | null;
  /** X: the post it answers (local/sandbox/record.ts). */
  inReplyTo?: string | null;
}
type PlatformRecord = { accounts: Record<string, { live: RecordedPost[]; deleted: RecordedPost[] }> };
export type SandboxRecord = { x: PlatformRecord; linkedin: PlatformRecord };

export interface PostView {
  id: string;
  accountId: string;
  status: string;
  text?: string | null;
  platformPostId: string | null;
  /** A thread's further parts in order, each null until live (docs/native-formats.md). */
  threadParts?: { platformPostId: string | null }[];
  error: { message: string; advice: string } | null;
}

/** The advice the service gives when it could not find out whether a post went out. */
const UNKNOWN_OUTCOME = /may already be live|check the (x|linkedin) account/i;

export interface CycleCheck {
  posts: number;
  published: number;
  failed: number;
  deleted: number;
  lost: number;
  duplicates: number;
  unknown: number;
  mismatched: number;
  liveAfterDelete: number;
  sentAfterCancel: number;
  allowance: { used: number; expectedMin: number; expectedMax: number; ok: boolean };
  threads: ThreadFigures;
  /** Milliseconds from the restart's ready moment to the last post settled. */
  recoveryMs: number;
  problems: string[];
}

export async function readRecord(origin: string): Promise<SandboxRecord> {
  const response = await fetch(`${origin}/sandbox/record`, { signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`GET /sandbox/record answered ${response.status}`);
  return (await response.json()) as SandboxRecord;
}

function onPlatform(record: SandboxRecord, post: KnownPost): RecordedPost[] {
  const account = record[post.platform].accounts[post.accountId];
  return account ? [...account.live, ...account.deleted] : [];
}

function orphanThread(state: BurstState, view: PostView & { platform: 'x' | 'linkedin' }): string[] | null {
  if (view.platform !== 'x' || (view.threadParts ?? []).length === 0) return null;
  const create = state.creates.find((planned) => planned.body.text === view.text && threadOf(planned.body) !== null);
  return create ? threadOf(create.body) : null;
}

/** Posts of the user the client never heard of: their create's answer was lost and not replayed. */
async function findOrphans(api: Api, state: BurstState): Promise<void> {
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const answer = await api.request('GET', `/posts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (answer.status !== 200) throw new Error(`GET /posts answered ${answer.status}`);
    for (const view of (answer.body.posts ?? []) as (PostView & { platform: 'x' | 'linkedin' })[]) {
      if (state.posts.has(view.id)) continue;
      state.posts.set(view.id, {
        id: view.id,
        accountId: view.accountId,
        platform: view.platform,
        sandbox: 'unknown',
        text: view.text ?? '',
        withMedia: false,
        accepted: true,
        orphan: true,
        // A thread whose create's answer was lost: its parts are the plan's, found by its first part's text.
        thread: orphanThread(state, view),
        deletion: null,
      });
    }
    cursor = typeof answer.body.nextCursor === 'string' ? answer.body.nextCursor : null;
    if (cursor === null) return;
  }
}

/**
 * Polls every post not deleted until it is published or failed, or the deadline passes
 * (`threadDeadline` while a thread is still open: its parts each wait out their own retry).
 */
export async function awaitSettled(
  api: Api,
  state: BurstState,
  readyAt: number,
  deadline: number,
  threadDeadline: number,
): Promise<{ views: Map<string, PostView>; lastSettledAt: number; lastThreadSettledAt: number }> {
  await findOrphans(api, state);
  const views = new Map<string, PostView>();
  // Apart, so the recovery figure stays comparable with the runs before threads.
  let lastSettledAt = readyAt;
  let lastThreadSettledAt = readyAt;
  for (;;) {
    // Past the posts' deadline only threads are asked again: another post still open then is lost.
    const pastDeadline = Date.now() > deadline;
    const open = [...state.posts.values()].filter(
      (post) => post.deletion === null && (!pastDeadline || post.thread !== null) && !['published', 'failed'].includes(views.get(post.id)?.status ?? ''),
    );
    if (open.length === 0 || Date.now() > Math.max(deadline, threadDeadline)) break;
    for (let at = 0; at < open.length; at += 8) {
      await Promise.all(
        open.slice(at, at + 8).map(async (post) => {
          try {
            const answer = await api.request('GET', `/posts/${post.id}`);
            if (answer.status !== 200) return;
            const view = answer.body as unknown as PostView;
            views.set(post.id, view);
            if (view.status !== 'published' && view.status !== 'failed') return;
            if (post.thread === null) lastSettledAt = Math.max(lastSettledAt, Date.now());
            else lastThreadSettledAt = Math.max(lastThreadSettledAt, Date.now());
          } catch {
            // Asked again on the next round.
          }
        }),
      );
    }
    await sleep(500);
  }
  return { views, lastSettledAt, lastThreadSettledAt };
}

/**
 * Waits (until the deadline) for platform deletions queued by deleteFromPlatform=true; `doneAt`
 * is when the last of them was seen gone, or null when none was still live at the first look.
 */
export async function awaitPlatformDeletions(origin: string, state: BurstState, deadline: number): Promise<{ record: SandboxRecord; doneAt: number | null }> {
  for (let round = 0; ; round++) {
    const record = await readRecord(origin);
    const waiting = [...state.posts.values()].some(
      (post) =>
        post.deletion?.deleteFromPlatform === true &&
        onPlatform(record, post).some((recorded) => recorded.deletedAt === null && matches(post, recorded, null)),
    );
    if (!waiting || Date.now() > deadline) return { record, doneAt: round === 0 ? null : Date.now() };
    await sleep(500);
  }
}

function matches(post: KnownPost, recorded: RecordedPost, view: PostView | null): boolean {
  if (post.text !== '') return recorded.text === post.text;
  return view?.platformPostId === recorded.id;
}

export interface ThreadFigures {
  threads: number;
  duplicated: number;
  missing: number;
}

/**
 * The X threads of a cycle against the X sandbox's record (pure: test/unit/chaos-thread-check.test.ts):
 *   duplicated  per part, every copy on the platform past the first: its text sent more than once
 *               (live or since deleted; two live answers to one parent for one part are two copies)
 *   missing     a `published` thread: each part that is not live, answering the part before it,
 *               with the id the post shows for it (part 1 `platformPostId`, then `threadParts`);
 *               a `failed` one: each live part its error does not name ("Parts 1-k of n are live"),
 *               and each part live out of order; one that never settled: each part not live in order
 * A thread deleted in flight is checked for duplicates only (the burst deletes none). `claimed` is
 * every platform post some part accounts for, so the cycle check does not count them as unasked.
 */
export function checkThreads(input: { posts: Iterable<KnownPost>; views: ReadonlyMap<string, PostView>; record: SandboxRecord }): ThreadFigures & { problems: string[]; claimed: Set<string> } {
  const figures = { threads: 0, duplicated: 0, missing: 0, problems: [] as string[], claimed: new Set<string>() };
  for (const post of input.posts) {
    if (post.thread === null || post.platform !== 'x') continue;
    figures.threads++;
    const texts = [post.text, ...post.thread];
    const total = texts.length;
    const label = `x/${post.sandbox} thread ${post.id}${post.orphan ? ' (orphan)' : ''}`;
    const held = onPlatform(input.record, post);
    const hits = texts.map((text) => held.filter((recorded) => recorded.text === text));
    for (const [index, copies] of hits.entries()) {
      for (const copy of copies) figures.claimed.add(copy.id);
      if (copies.length > 1) {
        figures.duplicated += copies.length - 1;
        figures.problems.push(`${label}: part ${index + 1} of ${total} is on X ${copies.length} times (${copies.map((copy) => `${copy.id}${copy.deletedAt === null ? '' : ' deleted'}`).join(', ')})`);
      }
    }
    if (post.deletion) continue;
    const view = input.views.get(post.id);
    const shown = view ? [view.platformPostId, ...(view.threadParts ?? []).map((part) => part.platformPostId)] : [];
    // The live chain: part 1, then each part live and answering the one before it (the copy the
    // post shows first, when there are two).
    const chain: string[] = [];
    for (const [index, copies] of hits.entries()) {
      const parent = chain.at(-1) ?? null;
      const candidates = copies.filter((copy) => copy.deletedAt === null && (parent === null || copy.inReplyTo === parent));
      const next = candidates.find((copy) => copy.id === shown[index]) ?? candidates[0];
      if (!next) break;
      chain.push(next.id);
    }
    const outOfOrder = hits.slice(chain.length).filter((copies) => copies.some((copy) => copy.deletedAt === null)).length;
    if (view?.status === 'published') {
      const inOrder = chain.findIndex((id, index) => shown[index] !== id);
      const good = inOrder === -1 ? chain.length : inOrder;
      if (good < total || shown.length !== total) {
        figures.missing += total - good;
        figures.problems.push(
          `${label} is published but only parts 1-${good} of ${total} are live in order with the ids it shows (live chain ${chain.length}, shown ${shown.map((id) => id ?? 'null').join(' ')})`,
        );
      }
      continue;
    }
    if (outOfOrder > 0) {
      figures.missing += outOfOrder;
      figures.problems.push(`${label}: ${outOfOrder} part(s) live but not answering the part before them`);
    }
    if (view?.status === 'failed') {
      const live = chain.length;
      const named = live === 0 || (view.error?.message ?? '').includes(live === 1 ? `Part 1 of ${total} is live` : `Parts 1-${live} of ${total} are live`);
      if (!named) {
        figures.missing += live;
        figures.problems.push(`${label} failed with ${live} of ${total} parts live, which its error does not name: ${view.error?.message ?? 'no error'}`);
      }
      continue;
    }
    figures.missing += total - chain.length;
    figures.problems.push(`${label} did not settle (${view?.status ?? 'never read'}) with ${chain.length} of ${total} parts live`);
  }
  return figures;
}

async function allowanceUsed(info: StackInfo, userId: string): Promise<number> {
  const client = dynamoDbClientFor(info.dynamodbEndpoint);
  try {
    const cycle = new Date().toISOString().slice(0, 7);
    const out = await client.send(
      new GetItemCommand({ TableName: info.tables.counters, Key: { pk: { S: `ALLOWANCE#${userId}#${cycle}` } }, ConsistentRead: true }),
    );
    return Number(out.Item?.used?.N ?? 0);
  } finally {
    client.destroy();
  }
}

export async function checkCycle(input: {
  state: BurstState;
  views: Map<string, PostView>;
  record: SandboxRecord;
  info: StackInfo;
  userId: string;
  /** This cycle's accounts: the record also holds other cycles' posts. */
  accountIds: ReadonlySet<string>;
  recoveryMs: number;
}): Promise<CycleCheck> {
  const { state, views, record } = input;
  const problems = [...state.problems];
  const check: CycleCheck = {
    posts: state.posts.size,
    published: 0,
    failed: 0,
    deleted: 0,
    lost: 0,
    duplicates: 0,
    unknown: 0,
    mismatched: 0,
    liveAfterDelete: 0,
    sentAfterCancel: 0,
    allowance: { used: 0, expectedMin: 0, expectedMax: 0, ok: false },
    threads: { threads: 0, duplicated: 0, missing: 0 },
    recoveryMs: input.recoveryMs,
    problems,
  };
  const claimed = new Set<string>();
  let softDeletedNeverSent = 0;
  for (const post of state.posts.values()) {
    const view = views.get(post.id) ?? null;
    const hits = onPlatform(record, post).filter((recorded) => matches(post, recorded, view));
    for (const hit of hits) claimed.add(hit.id);
    const live = hits.filter((hit) => hit.deletedAt === null);
    const label = `${post.platform}/${post.sandbox} ${post.id}${post.orphan ? ' (orphan)' : ''}`;
    if (hits.length > 1) {
      check.duplicates += hits.length - 1;
      problems.push(`${label} is on the platform ${hits.length} times`);
    }
    if (post.deletion) {
      check.deleted++;
      // Soft-deleted (it may have been live) and nothing reached the platform: once its worker has
      // settled it, its unit is given back (issue 19 item 12); perhaps not yet when the counter is read.
      if (post.deletion.outcome === 'soft_deleted' && hits.length === 0) softDeletedNeverSent++;
      if (post.deletion.outcome === 'cancelled' && hits.length > 0) {
        check.sentAfterCancel++;
        problems.push(`${label} was cancelled (unit refunded) but reached the platform`);
      }
      if (post.deletion.deleteFromPlatform && live.length > 0) {
        check.liveAfterDelete++;
        problems.push(`${label} was deleted with deleteFromPlatform=true but is still live`);
      }
      continue;
    }
    if (!view || (view.status !== 'published' && view.status !== 'failed')) {
      check.lost++;
      problems.push(`${label} did not settle: ${view?.status ?? 'never read'}`);
      continue;
    }
    if (view.status === 'published') {
      check.published++;
      if (!hits.some((hit) => hit.id === view.platformPostId && hit.deletedAt === null)) {
        check.mismatched++;
        problems.push(`${label} is published as ${view.platformPostId ?? 'null'}, which its platform does not hold live`);
      }
      continue;
    }
    check.failed++;
    if (!view.error?.advice) {
      check.lost++;
      problems.push(`${label} failed without advice`);
    } else if (UNKNOWN_OUTCOME.test(view.error.advice)) {
      check.unknown++;
      problems.push(`${label} failed as unknown (${view.error.message}) although the platform ${live.length > 0 ? 'holds it' : 'does not hold it'}`);
    } else if (live.length > 0 && post.thread === null) {
      // A thread failed midway keeps its live parts by design; checkThreads holds it to naming them.
      check.mismatched++;
      problems.push(`${label} failed (${view.error.message}) but is live on its platform`);
    }
  }
  const threads = checkThreads({ posts: state.posts.values(), views, record });
  check.threads = { threads: threads.threads, duplicated: threads.duplicated, missing: threads.missing };
  problems.push(...threads.problems);
  for (const id of threads.claimed) claimed.add(id);
  // A platform post no post of ours accounts for: a second copy the text match could not see.
  for (const platform of ['x', 'linkedin'] as const) {
    for (const [accountId, held] of Object.entries(record[platform].accounts)) {
      if (!input.accountIds.has(accountId)) continue;
      for (const recorded of [...held.live, ...held.deleted]) {
        if (claimed.has(recorded.id)) continue;
        check.duplicates++;
        problems.push(`${platform} ${accountId} holds ${recorded.id} ("${recorded.text.slice(0, 40)}") that no post accounts for`);
      }
    }
  }
  const accepted = [...state.posts.values()].filter((post) => post.accepted).length;
  const refunded = [...state.posts.values()].filter((post) => post.deletion?.outcome === 'cancelled').length;
  const maybeRefunded = [...state.posts.values()].filter((post) => post.deletion?.outcome === 'unknown').length + softDeletedNeverSent;
  const used = await allowanceUsed(input.info, input.userId);
  check.allowance = { used, expectedMin: accepted - refunded - maybeRefunded, expectedMax: accepted - refunded, ok: false };
  check.allowance.ok = used >= check.allowance.expectedMin && used <= check.allowance.expectedMax;
  if (!check.allowance.ok) problems.push(`allowance used ${used}, expected ${check.allowance.expectedMin}..${check.allowance.expectedMax}`);
  return check;
}

/**
 * Webhooks of a cycle, against the receiver's own record of what it got (chaos/receiver.ts) and
 * each post's final item in DynamoDB:
 *   expected   every post whose final status is `published` or `failed` (deleted ones included:
 *              the change happened), one `post.<status>` event each
 *   delivered  of those, the ones the receiver accepted at least once with a signature that verifies
 *   missing    expected and not delivered by the deadline
 *   invented   an event (distinct `webhook-id`) for a state its post never reached: a type that is
 *              not the post's final status, a `data.object.status` that is not it, any event of a
 *              cancelled post or of a post this customer does not have, or a second event for the
 *              same post and type; for a thread, an event whose `format` is not `thread`, or a
 *              `post.published` one not showing every further part live
 *   unverified requests whose signature did not verify
 *   deliveriesPerEvent  requests the receiver saw per event (its refusals included; refused
 *              connections while it was down are not seen)
 *   seenBeforeKill / acrossKill  events the receiver saw before the kill, and of those the ones
 *              not accepted until after the restart (their retry crossed the kill): whether the
 *              kill met the webhook pipeline at all in this cycle
 */
export interface WebhookCheck {
  expected: number;
  delivered: number;
  missing: number;
  invented: number;
  unverified: number;
  requests: number;
  refusedByReceiver: number;
  deliveriesPerEvent: { mean: number; max: number };
  seenBeforeKill: number;
  acrossKill: number;
  /** Milliseconds from the restart's ready moment to the last expected event delivered. */
  lastDeliveredMs: number | null;
  problems: string[];
}

type PostOutcomeType = 'post.published' | 'post.failed';

async function finalPostItems(info: StackInfo, ids: Iterable<string>): Promise<Map<string, { status: string } | null>> {
  const client = dynamoDbClientFor(info.dynamodbEndpoint);
  const items = new Map<string, { status: string } | null>();
  try {
    for (const id of ids) {
      const out = await client.send(new GetItemCommand({ TableName: info.tables.posts, Key: { id: { S: id } }, ConsistentRead: true }));
      items.set(id, out.Item?.status?.S ? { status: out.Item.status.S } : null);
    }
  } finally {
    client.destroy();
  }
  return items;
}

/** The outcome events the posts owe, from their final items: post id -> event type. */
export async function expectedPostEvents(info: StackInfo, state: BurstState): Promise<{ expected: Map<string, PostOutcomeType>; finals: Map<string, { status: string } | null> }> {
  const finals = await finalPostItems(info, state.posts.keys());
  const expected = new Map<string, PostOutcomeType>();
  for (const post of state.posts.values()) {
    if (post.deletion?.outcome === 'cancelled') continue;
    const status = finals.get(post.id)?.status;
    if (status === 'published' || status === 'failed') expected.set(post.id, `post.${status}`);
  }
  return { expected, finals };
}

function deliveredOk(requests: readonly ReceivedRequest[], postId: string, type: PostOutcomeType): ReceivedRequest | undefined {
  return requests.find((request) => request.postId === postId && request.type === type && request.answer === 'accepted' && request.verified);
}

/** Polls the receiver's record until every expected event was accepted with a valid signature, or the deadline. */
export async function awaitWebhooks(requests: readonly ReceivedRequest[], expected: ReadonlyMap<string, PostOutcomeType>, deadline: number): Promise<void> {
  while (Date.now() <= deadline) {
    if ([...expected].every(([postId, type]) => deliveredOk(requests, postId, type))) return;
    await sleep(250);
  }
}

export function checkWebhooks(input: {
  state: BurstState;
  requests: readonly ReceivedRequest[];
  expected: ReadonlyMap<string, PostOutcomeType>;
  finals: ReadonlyMap<string, { status: string } | null>;
  readyAt: number;
  killedAt: number;
}): WebhookCheck {
  const { state, requests, expected, finals } = input;
  const problems: string[] = [];
  let delivered = 0;
  let lastDelivered: number | null = null;
  for (const [postId, type] of expected) {
    const hit = deliveredOk(requests, postId, type);
    if (hit) {
      delivered++;
      lastDelivered = Math.max(lastDelivered ?? 0, hit.at);
    } else {
      const seen = requests.filter((request) => request.postId === postId);
      problems.push(`webhook ${type} of ${postId} not delivered (${seen.length} request(s) seen: ${seen.map((request) => `${request.type} ${request.answer}${request.verified ? '' : ' unverified'}`).join(', ') || 'none'})`);
    }
  }
  // Every distinct event the receiver saw, judged once.
  const events = new Map<string, ReceivedRequest[]>();
  for (const request of requests) {
    const list = events.get(request.webhookId) ?? [];
    list.push(request);
    events.set(request.webhookId, list);
  }
  let invented = 0;
  const byPostAndType = new Map<string, string>();
  for (const [webhookId, seen] of events) {
    const first = seen[0];
    if (!first) continue;
    const post = first.postId === null ? undefined : state.posts.get(first.postId);
    const final = first.postId === null ? undefined : finals.get(first.postId);
    const label = `${first.type} ${webhookId} for ${first.postId ?? 'no post'}`;
    let reason: string | null = null;
    if (first.type !== 'post.published' && first.type !== 'post.failed') reason = 'a type the endpoint did not ask for';
    else if (!post) reason = 'a post this customer does not have';
    else if (post.deletion?.outcome === 'cancelled') reason = 'a cancelled post';
    else if (!final) reason = 'a post with no item';
    else if (`post.${final.status}` !== first.type) reason = `the post is ${final.status}`;
    else if (first.objectStatus !== final.status) reason = `data.object.status is ${first.objectStatus ?? 'missing'}, the post is ${final.status}`;
    // A thread's events carry its format and parts: a published one with every further part live.
    else if (post.thread !== null && first.format !== 'thread') reason = `data.object.format is ${first.format ?? 'missing'} for a thread`;
    else if (post.thread !== null && first.type === 'post.published' && (first.threadParts?.length !== post.thread.length || first.threadParts.some((id) => id === null)))
      reason = `a published thread whose event shows ${first.threadParts?.filter((id) => id !== null).length ?? 0} of ${post.thread.length} further parts live`;
    else if (seen.some((request) => request.type !== first.type || request.postId !== first.postId)) reason = 'one webhook-id carried different events';
    else {
      const key = `${first.postId ?? ''} ${first.type}`;
      const earlier = byPostAndType.get(key);
      if (earlier !== undefined) reason = `a second event for one change (first ${earlier})`;
      else byPostAndType.set(key, webhookId);
    }
    if (reason !== null) {
      invented++;
      problems.push(`webhook ${label} invented: ${reason}`);
    }
  }
  const unverified = requests.filter((request) => !request.verified).length;
  if (unverified > 0) problems.push(`${unverified} webhook request(s) whose signature did not verify`);
  const counts = [...events.values()].map((seen) => seen.length);
  const beforeKill = [...events.values()].filter((seen) => seen.some((request) => request.at < input.killedAt));
  const acrossKill = beforeKill.filter((seen) => !seen.some((request) => request.at < input.killedAt && request.answer === 'accepted') && seen.some((request) => request.answer === 'accepted'));
  return {
    expected: expected.size,
    delivered,
    missing: expected.size - delivered,
    invented,
    unverified,
    requests: requests.length,
    refusedByReceiver: requests.filter((request) => request.answer !== 'accepted').length,
    deliveriesPerEvent: {
      mean: counts.length > 0 ? Math.round((counts.reduce((sum, count) => sum + count, 0) / counts.length) * 100) / 100 : 0,
      max: counts.length > 0 ? Math.max(...counts) : 0,
    },
    seenBeforeKill: beforeKill.length,
    acrossKill: acrossKill.length,
    lastDeliveredMs: lastDelivered === null ? null : lastDelivered - input.readyAt,
    problems,
  };
}

/** An event as GET /events lists it: what the check reads of it. */
export interface ListedEvent {
  id: string;
  type: string;
  data: { object: { id?: unknown } };
}

/**
 * Every settled post's event is readable through GET /events (beyond-v2.md, "Events you can read
 * back"): the problems, one per expected event the list does not hold, and per post with more than
 * one event of its outcome's type (an event recorded twice under two ids).
 */
export function checkEventsReadable(expected: ReadonlyMap<string, PostOutcomeType>, listed: readonly ListedEvent[]): string[] {
  const problems: string[] = [];
  const ids = new Map<string, Set<string>>();
  for (const event of listed) {
    const postId = typeof event.data.object.id === 'string' ? event.data.object.id : null;
    if (postId === null) continue;
    const key = `${postId} ${event.type}`;
    ids.set(key, (ids.get(key) ?? new Set()).add(event.id));
  }
  for (const [postId, type] of expected) {
    const found = ids.get(`${postId} ${type}`);
    if (!found) problems.push(`event ${type} of ${postId} not readable through GET /events`);
    else if (found.size > 1) problems.push(`event ${type} of ${postId} listed under ${found.size} ids: ${[...found].join(', ')}`);
  }
  return problems;
}

