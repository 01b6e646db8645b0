/**
 * The bodies of the messages the API puts on the queues: the contract between create/delete and
 * the workers (functions/publish-worker.ts, functions/platform-deletion-worker.ts).
 *
 *   publish queue:  {"kind":"publish","postId":"post_…","scheduledFor":"2026-11-21T09:30:00.000Z"}
 *   deletion queue: {"kind":"delete-from-platform","postId":"post_…"}
 *
 * A message only names the post: the worker reads the post record for everything else, so a
 * message can never carry stale text, tokens or state. Delivery is at least once (SQS, Scheduler):
 * the worker's conditional claim makes a duplicate harmless.
 */
export interface PublishMessage {
  kind: 'publish';
  postId: string;
  /** ISO time the post is due; the worker delays again when it arrives early. */
  scheduledFor: string;
}

export interface PlatformDeletionMessage {
  kind: 'delete-from-platform';
  postId: string;
}

export function publishMessage(postId: string, scheduledFor: string): PublishMessage {
  return { kind: 'publish', postId, scheduledFor };
}

export function platformDeletionMessage(postId: string): PlatformDeletionMessage {
  return { kind: 'delete-from-platform', postId };
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

export function parsePlatformDeletionMessage(body: string): PlatformDeletionMessage | null {
  const value = record(body);
  if (!value || value.kind !== 'delete-from-platform' || typeof value.postId !== 'string') return null;
  return { kind: 'delete-from-platform', postId: value.postId };
}

/** The EventBridge Scheduler schedule of a post: derived from its id, so a cancel can delete it without a lookup. */
export function scheduleName(postId: string): string {
  return `post-${postId}`;
}
