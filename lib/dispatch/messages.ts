/**
 * The bodies of the messages the API puts on the queues: the contract between create/delete and
 * the workers (functions/publish-worker.ts, functions/platform-deletion-worker.ts).
 *
 *   publish queue:  {"kind":"publish","postId":"post_…","scheduledFor":"2026-11-21T09:30:00.000Z"}
 *                   {"kind":"publish-group","postIds":["post_…",…],"scheduledFor":"…","prepareMs":5000}
 *   deletion queue: {"kind":"delete-from-platform","postId":"post_…"}
 *
 * A message only names the post: the worker reads the post record for everything else, so a
 * message can never carry stale text, tokens or state. Delivery is at least once (SQS, Scheduler):
 * the worker's conditional claim makes a duplicate harmless.
 */
import * as v from 'valibot';
import { MAX_GROUP_POSTS, MAX_PREPARE_WINDOW_MS, PREPARE_WINDOW_MS } from '../domain/publishing.js';
import type { PublishEntry } from '../use-cases/ports/dispatch.js';

export interface PublishMessage {
  kind: 'publish';
  postId: string;
  /** ISO time the post is due; the worker delays again when it arrives early. */
  scheduledFor: string;
}

/**
 * Posts due at the same second, put back together by the worker once it counted how many share
 * that second (lib/use-cases/publish-batch.ts): one message instead of one per post, so an
 * invocation holds up to MAX_GROUP_POSTS × batch size posts until their second, and each carries
 * the lead it is prepared with. Each post in it is still claimed on its own.
 */
export interface PublishGroupMessage {
  kind: 'publish-group';
  postIds: string[];
  scheduledFor: string;
  /**
   * How long before scheduledFor the posts are prepared (prepareWindowMs of the count); absent
   * when their second is still to be counted (posts put back from a schedule fired 180 s ahead).
   */
  prepareMs?: number;
}

/** A post id's longest length in a message (ours are ~30 characters). */
const MAX_POST_ID_LENGTH = 100;

export interface PlatformDeletionMessage {
  kind: 'delete-from-platform';
  postId: string;
}

export function publishMessage(postId: string, scheduledFor: string): PublishMessage {
  return { kind: 'publish', postId, scheduledFor };
}

export function publishGroupMessage(postIds: readonly string[], scheduledFor: string, prepareMs?: number): PublishGroupMessage {
  return { kind: 'publish-group', postIds: [...postIds], scheduledFor, ...(prepareMs === undefined ? {} : { prepareMs }) };
}

export function platformDeletionMessage(postId: string): PlatformDeletionMessage {
  return { kind: 'delete-from-platform', postId };
}

/** A queue message's body read through its schema: the value, or null for anything else (a poison message is dropped, not retried). */
export function parseMessageBody<S extends v.GenericSchema>(body: string, schema: S): v.InferOutput<S> | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = v.safeParse(schema, value);
  return parsed.success ? parsed.output : null;
}

function record(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The publish message in an SQS body, or null for anything else (a poison message is dropped, not retried). */
export function parsePublishMessage(body: string): PublishMessage | null {
  const value = record(body);
  if (!value || value.kind !== 'publish' || typeof value.postId !== 'string' || typeof value.scheduledFor !== 'string') return null;
  if (Number.isNaN(Date.parse(value.scheduledFor))) return null;
  return { kind: 'publish', postId: value.postId, scheduledFor: value.scheduledFor };
}

/**
 * The posts a publish queue message names: one for a publish message, each of a group's; null for
 * anything else (dropped, not retried), a group of more than MAX_GROUP_POSTS or a lead outside
 * PREPARE_WINDOW_MS to MAX_PREPARE_WINDOW_MS included, so a forged body cannot make a worker hold more or longer than it would.
 */
export function parsePublishEntries(body: string): PublishEntry[] | null {
  const single = parsePublishMessage(body);
  if (single) return [{ postId: single.postId, scheduledFor: single.scheduledFor }];
  const value = record(body);
  if (!value || value.kind !== 'publish-group' || typeof value.scheduledFor !== 'string' || Number.isNaN(Date.parse(value.scheduledFor))) return null;
  const { postIds, prepareMs } = value;
  if (prepareMs !== undefined && (typeof prepareMs !== 'number' || !Number.isInteger(prepareMs) || prepareMs < PREPARE_WINDOW_MS || prepareMs > MAX_PREPARE_WINDOW_MS)) return null;
  if (!Array.isArray(postIds) || postIds.length === 0 || postIds.length > MAX_GROUP_POSTS) return null;
  if (!postIds.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= MAX_POST_ID_LENGTH)) return null;
  const scheduledFor = value.scheduledFor;
  return [...new Set(postIds)].map((postId) => (prepareMs === undefined ? { postId, scheduledFor } : { postId, scheduledFor, prepareMs }));
}

export function parsePlatformDeletionMessage(body: string): PlatformDeletionMessage | null {
  const value = record(body);
  if (!value || value.kind !== 'delete-from-platform' || typeof value.postId !== 'string') return null;
  return { kind: 'delete-from-platform', postId: value.postId };
}

/** The EventBridge Scheduler schedule of a post: derived from its id, so a cancel can delete it without a lookup. */
export function scheduleName(postId: string): string {
  return `post-${postId}`;
}
