/**
 * Counts requests in the counters table, exactly, whatever the number of Lambdas: every count is
 * a conditional UpdateItem, which DynamoDB applies atomically, so of N concurrent requests against
 * a window with room for L exactly L are admitted - never more. A refused request changes nothing,
 * so hammering does not inflate a count and a burst refused by the minute does not eat the day.
 *
 * A key has ONE counter per UTC day, `RATE#KEY#<keyId>#<2026-11-21>`: dayCount, the minute it is
 * counting now (minuteId, the ISO minute `2026-11-21T09:30`, which orders correctly as a string),
 * minuteCount, and expiresAt (TTL, an hour after the day). A request is one of two updates:
 *
 *   count_in_minute  ADD dayCount 1, minuteCount 1
 *                    IF minuteId >= :minute AND minuteCount < :perMinute AND dayCount < :perDay
 *   start_minute     SET minuteId = :minute, minuteCount = 1, expiresAt ADD dayCount 1
 *                    IF (no minuteId OR minuteId < :minute) AND (no dayCount OR dayCount < :perDay)
 *
 * The two conditions split on the minute, so exactly one of them can hold (given room). When the
 * one tried fails, DynamoDB returns the counter as it was (ReturnValuesOnConditionCheckFailure),
 * which tells why without another read: day spent (429 rate_limit_daily), minute full (429
 * rate_limit_burst), or the other update applies (nextKeyCountStep). Which update to try first is
 * a guess from the last minute this process saw the key count in: within a minute that is
 * count_in_minute; for a key not seen yet this minute it is start_minute, right for a key that
 * calls now and then and wrong only for the first request per process of a busy key's minute
 * when another Lambda started it. So a request costs one UpdateItem, sometimes two, at most three
 * (a wrong guess, then a race for the minute); the guess never affects what is counted.
 *
 * A counter returned with minuteId later than this request's minute means a Lambda whose clock is
 * a few milliseconds ahead has started the next minute: the request is counted in that minute
 * rather than resetting it (on the strict side, and only at a minute boundary).
 *
 * A request that failed authentication is counted against the client address: one item per
 * minute, `RATE#ADDR#<ip>#<2026-11-21T09:30>` (requests, expiresAt), bumped by a single
 * `ADD requests 1` while below the limit. Metadata-document fetches an address caused are counted
 * the same way, `RATE#FETCH#<ip>#<minute>`, against METADATA_FETCHES_PER_MINUTE.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import type { CounterOutcome, KeyCount, KeyCounterState, KeyCountStep, RateLimits, RateWindow } from '../domain/rate-windows.js';
import { dayWindow, decideAddressRequest, decideKeyRequest, METADATA_FETCHES_PER_MINUTE, minuteWindow, nextKeyCountStep } from '../domain/rate-windows.js';
import type { RateBucket, RateDecision } from '../domain/rate-windows.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import { documentClient } from './dynamo-client.js';
import { readItem, StoredItemError } from './item-schema.js';
import { COUNTERS_TABLE } from './tables.js';

export interface DynamoDbRateLimiterOptions {
  limits: RateLimits;
  /** Physical table name; defaults to the COUNTERS_TABLE environment variable. */
  tableName?: string;
  client?: DynamoDBDocumentClient;
}

/** Updates one count may take: a wrong first guess, then losing the race to start the minute. */
const MAX_KEY_UPDATES = 3;
/** Keys whose last minute this process remembers (only a guess: forgetting costs one update). */
const MINUTE_HINTS = 10_000;

type UpdateResult = { applied: true; attributes: Record<string, unknown> } | { applied: false; counter: KeyCounterState | undefined };

export class DynamoDbRateLimiter implements RateLimiter {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;
  private readonly limits: RateLimits;
  /** keyId -> the minute this process last saw the key's counter counting (see the header). */
  private readonly minuteHints = new Map<string, string>();

  constructor(options: DynamoDbRateLimiterOptions) {
    this.tableName = options.tableName ?? requireEnv(COUNTERS_TABLE.envVar);
    this.client = options.client ?? documentClient;
    this.limits = options.limits;
  }

  async hit(bucket: RateBucket, now: Date): Promise<RateDecision> {
    const minute = minuteWindow(now);
    if (bucket.kind === 'address') {
      const outcome = await this.bump(`RATE#ADDR#${bucket.address}#${minute.id}`, minute, this.limits.perMinute);
      return decideAddressRequest({ now, perMinute: this.limits.perMinute, minute: outcome });
    }
    if (bucket.kind === 'fetch') {
      const outcome = await this.bump(`RATE#FETCH#${bucket.address}#${minute.id}`, minute, METADATA_FETCHES_PER_MINUTE);
      return decideAddressRequest({ now, perMinute: METADATA_FETCHES_PER_MINUTE, minute: outcome });
    }
    const count = await this.countKeyRequest(bucket.keyId, minute, dayWindow(now));
    return decideKeyRequest({ now, limits: this.limits, count });
  }

  private async countKeyRequest(keyId: string, minute: RateWindow, day: RateWindow): Promise<KeyCount> {
    const pk = `RATE#KEY#${keyId}#${day.id}`;
    let step: KeyCountStep = this.minuteHints.get(keyId) === minute.id ? 'count_in_minute' : 'start_minute';
    for (let update = 0; update < MAX_KEY_UPDATES; update += 1) {
      const result = step === 'count_in_minute' ? await this.countInMinute(pk, minute) : await this.startMinute(pk, minute, day);
      if (result.applied) {
        this.remember(keyId, minute.id);
        return { outcome: 'admitted', ...readCounter(KEY_COUNTS, result.attributes, pk) };
      }
      step = nextKeyCountStep(result.counter, minute.id, this.limits);
      if (step === 'day_full') return { outcome: 'day_full' };
      if (step === 'minute_full') {
        this.remember(keyId, minute.id);
        return { outcome: 'minute_full' };
      }
    }
    // Each failed update returns the counter that decides the next one, and a counter's minute
    // only moves forward, so this means the table holds something this code did not write.
    throw new DependencyError(`Rate counter ${pk} did not settle in ${MAX_KEY_UPDATES} updates`);
  }

  private countInMinute(pk: string, minute: RateWindow): Promise<UpdateResult> {
    return this.update(pk, {
      UpdateExpression: 'ADD dayCount :one, minuteCount :one',
      ConditionExpression: 'minuteId >= :minute AND minuteCount < :perMinute AND dayCount < :perDay',
      ExpressionAttributeValues: { ':one': 1, ':minute': minute.id, ':perMinute': this.limits.perMinute, ':perDay': this.limits.perDay },
    });
  }

  private startMinute(pk: string, minute: RateWindow, day: RateWindow): Promise<UpdateResult> {
    return this.update(pk, {
      UpdateExpression: 'SET minuteId = :minute, minuteCount = :one, expiresAt = :expiresAt ADD dayCount :one',
      ConditionExpression: '(attribute_not_exists(minuteId) OR minuteId < :minute) AND (attribute_not_exists(dayCount) OR dayCount < :perDay)',
      ExpressionAttributeValues: { ':one': 1, ':minute': minute.id, ':perDay': this.limits.perDay, ':expiresAt': day.expiresAt },
    });
  }

  private async update(
    pk: string,
    expression: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, string | number> },
  ): Promise<UpdateResult> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk },
          ...expression,
          ReturnValues: 'UPDATED_NEW',
          // Why the condition failed, without a second read.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { applied: true, attributes: out.Attributes ?? {} };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // The document client does not unmarshall an error's item.
        return { applied: false, counter: error.Item ? readCounter(KEY_COUNTER, unmarshall(error.Item), pk) : undefined };
      }
      throw new DependencyError('Rate counter update failed', { cause: error });
    }
  }

  private remember(keyId: string, minuteId: string): void {
    // Insertion order makes the first entry the least recently counted key: drop it when full.
    this.minuteHints.delete(keyId);
    if (this.minuteHints.size >= MINUTE_HINTS) {
      const oldest = this.minuteHints.keys().next();
      if (!oldest.done) this.minuteHints.delete(oldest.value);
    }
    this.minuteHints.set(keyId, minuteId);
  }

  private async bump(pk: string, window: RateWindow, limit: number): Promise<CounterOutcome> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk },
          UpdateExpression: 'ADD #requests :one SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(#requests) OR #requests < :limit',
          ExpressionAttributeNames: { '#requests': 'requests' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expiresAt': window.expiresAt },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { admitted: true, count: readCounter(ADDRESS_COUNT, out.Attributes ?? {}, pk).requests };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { admitted: false };
      if (error instanceof DependencyError) throw error;
      throw new DependencyError('Rate counter update failed', { cause: error });
    }
  }
}

/** What a counting update returns (UPDATED_NEW): both counts, always, since it ADDs to both. */
const KEY_COUNTS = v.object({ minuteCount: v.number(), dayCount: v.number() });
/** A key's counter as returned with a failed condition: any field may be absent (a new day). */
const KEY_COUNTER = v.object({ minuteId: v.optional(v.string()), minuteCount: v.optional(v.number()), dayCount: v.optional(v.number()) });
const ADDRESS_COUNT = v.object({ requests: v.number() });

/**
 * Reads a counter with the stores' one item reader; a counter of the wrong shape is a dependency
 * failure to the caller (the generic 500), as every other failure of the counters table is.
 */
function readCounter<TSchema extends v.GenericSchema>(schema: TSchema, attributes: Record<string, unknown>, pk: string): v.InferOutput<TSchema> {
  try {
    return readItem(schema, attributes, `Rate counter ${pk}`);
  } catch (error) {
    if (error instanceof StoredItemError) throw new DependencyError(error.message, { cause: error });
    throw error;
  }
}
