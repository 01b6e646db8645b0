/** Making posts due and queueing work: lib/dispatch implements these. */

/** What a publish message asks: send this post at scheduledFor. */
export interface DueRequest {
  postId: string;
  /** ISO time the post is due. */
  scheduledFor: string;
}

export interface PostDispatcher {
  /**
   * Makes each post due at its time: SQS with a delay when due within 15 minutes, else an
   * EventBridge Scheduler one-time schedule. Returns the ids that could not be queued.
   */
  dispatch(requests: readonly DueRequest[], now: Date): Promise<{ failed: string[] }>;
  /** Deletes the post's pending schedule, if it has one. Never throws for a schedule that is gone. */
  cancel(postId: string): Promise<void>;
  /**
   * Makes a post whose time moved (PATCH scheduledFor) due at its new time: its schedule is
   * deleted, then it is dispatched again. False when that could not be done; a message or schedule
   * for the old time is harmless either way (the worker's claim goes by the post's own time).
   */
  reschedule(request: DueRequest, now: Date): Promise<boolean>;
}

/** The deletion queue: the worker deletes the live post of a soft-deleted published post. */
export interface PlatformDeletionQueue {
  enqueue(postId: string): Promise<void>;
}

/** Puts publish messages on the publish queue, each with its own delay (at most 900 s). */
export interface PublishQueue {
  send(entries: readonly { postId: string; scheduledFor: string; delaySeconds: number }[]): Promise<{ failed: string[] }>;
}

/** One post a publish message names (lib/dispatch/messages.ts): a group's posts carry its lead. */
export interface PublishEntry {
  postId: string;
  scheduledFor: string;
  /** Set when the post's second was counted (a group): its lead; else the default PREPARE_WINDOW_MS. */
  prepareMs?: number;
}

/** Posts due at the same second put back as one message with the lead they are prepared with (lib/dispatch/messages.ts). */
export interface PublishGroup {
  postIds: readonly string[];
  scheduledFor: string;
  /** Absent: the posts' second is still to be counted when they arrive. */
  prepareMs?: number;
  delaySeconds: number;
}

/** Puts group messages on the publish queue; returns the ids of the posts whose message did not go. */
export interface PublishGroupQueue {
  sendGroups(groups: readonly PublishGroup[]): Promise<{ failed: string[] }>;
}

/** How many posts are due at one second (the byDue index), counted up to `cap`. */
export interface DueCounter {
  countDue(second: Date, cap: number): Promise<number>;
}
