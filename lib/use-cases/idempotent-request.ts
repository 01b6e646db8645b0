/**
 * The Idempotency-Key of every POST and PATCH after the create (the post changes: update-post.ts,
 * publish-draft.ts, retry-post.ts; the webhook endpoints' writes: webhooks/endpoints.ts) kept as
 * on a create: claimed before anything is checked, its answer remembered in the same write as the
 * change, released when the answer is an error.
 *
 * The key's record hashes the method and path with the body: the same key sent to another post,
 * or to another action, is a different request (422 idempotency_key_reused), never a replay.
 */
import { ApiError } from '../domain/errors.js';
import { bodyHash, parseIdempotencyKey } from '../domain/idempotency.js';
import type { IdempotencyLock } from '../domain/idempotency-record.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';

/** A request's answer: its own, or the remembered one replayed (Idempotent-Replayed: true). */
export interface IdempotentOutcome<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
}

/**
 * Runs `change` under the request's Idempotency-Key (none: just runs it). `change` gets the lock
 * to complete in its write and marks `progress.remembered` once that write is done. `replayed`
 * turns a remembered body back into the answer: the webhook endpoints remember their signing
 * secret encrypted, never as shown (webhooks/endpoints.ts).
 */
export async function idempotentRequest<B = unknown>(
  idempotency: IdempotencyStore,
  caller: Caller,
  request: { method: string; path: string; body: unknown; idempotencyKey: string | undefined; now: Date },
  change: (lock: IdempotencyLock | null, progress: { remembered: boolean }) => Promise<IdempotentOutcome<B>>,
  replayed: (remembered: unknown) => Promise<B> = (remembered) => Promise.resolve(remembered as B),
): Promise<IdempotentOutcome<B>> {
  const key = parseIdempotencyKey(request.idempotencyKey);
  let lock: IdempotencyLock | null = null;
  if (key !== null) {
    const claim = await idempotency.claim(caller.userId, key, bodyHash({ method: request.method, path: request.path, body: request.body ?? null }), request.now);
    switch (claim.outcome) {
      case 'replay':
        return { status: claim.response.status, body: await replayed(claim.response.body), headers: { 'Idempotent-Replayed': 'true' } };
      case 'in_flight':
        throw new ApiError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry once it has finished.', { param: 'Idempotency-Key' });
      case 'body_mismatch':
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key.', { param: 'Idempotency-Key' });
      case 'started':
        lock = claim.lock;
    }
  }
  const progress = { remembered: false };
  try {
    return await change(lock, progress);
  } catch (error) {
    if (lock && !progress.remembered) {
      await idempotency.release(lock).catch((releaseError: unknown) => {
        logger.warn('Could not release an idempotency record; it unlocks when its lock expires', { error: releaseError as Error });
      });
    }
    throw error;
  }
}

/**
 * The idempotency store of callers that never send an Idempotency-Key: the settings buttons (a
 * post's second click is refused by the change's own condition, 409). Asked to claim a key, it refuses:
 * such a caller was built wrong.
 */
export const WITHOUT_IDEMPOTENCY_KEYS: IdempotencyStore = {
  claim: () => Promise.reject(new Error('This caller sends no Idempotency-Key')),
  release: () => Promise.resolve(),
};
