/** What an idempotency record holds and what claiming its key can find (the rules: idempotency.ts). */

/** A response an idempotency record remembers and replays (only ever a 202). */
export interface IdempotentResponse {
  status: number;
  body: unknown;
}

/** Held by the one request that claimed an idempotency key; completing or releasing needs it. */
export interface IdempotencyLock {
  userId: string;
  key: string;
  lockToken: string;
}

export type IdempotencyClaim =
  | { outcome: 'started'; lock: IdempotencyLock }
  | { outcome: 'replay'; response: IdempotentResponse }
  | { outcome: 'in_flight' }
  | { outcome: 'body_mismatch' };

/** What a change writes, in its own transaction, to complete the record of the request that made it. */
export interface IdempotencyCompletion {
  lock: IdempotencyLock;
  response: IdempotentResponse;
}
