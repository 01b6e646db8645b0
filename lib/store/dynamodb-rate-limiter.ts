/**
 * Counts requests in the counters table, exactly, whatever the number of Lambdas: each window is
 * one item, bumped by a single conditional UpdateItem (`ADD requests 1` only while the count is
 * below the limit, ReturnValues UPDATED_NEW). DynamoDB applies each update atomically, so of N
 * concurrent requests against a window with room for L exactly L are admitted - never more.
 * A refused request leaves a full window unchanged, so hammering does not inflate the count.
 *
 * A key's minute and day counters are bumped in parallel (two round trips at once, not one after
 * the other). When the day admitted a request that the minute refused, the day's unit is given
 * back: a burst refused by the minute limit does not eat the daily budget. While that give-back
 * is in flight the day count is one high, so right at the daily limit a concurrent request can
 * be refused that would have fitted; the error is only ever on the safe side.
 *
 * Counter items: pk `RATE#KEY#<keyId>#<2026-11-21T09:30>`, `RATE#KEY#<keyId>#<2026-11-21>`,
 * `RATE#ADDR#<ip>#<2026-11-21T09:30>`; `expiresAt` (TTL) a little after the window ends.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import type { CounterOutcome, RateLimits, RateWindow } from '../domain/rate-windows.js';
import { dayWindow, decideAddressRequest, decideKeyRequest, minuteWindow } from '../domain/rate-windows.js';
import { logger } from '../observability.js';
import type { RateBucket, RateDecision, RateLimiter } from '../ports.js';
import { documentClient } from './dynamo-client.js';
import { COUNTERS_TABLE } from './tables.js';

export interface DynamoDbRateLimiterOptions {
  limits: RateLimits;
  /** Physical table name; defaults to the COUNTERS_TABLE environment variable. */
  tableName?: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoDbRateLimiter implements RateLimiter {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;
  private readonly limits: RateLimits;

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
    const day = dayWindow(now);
    const dayKey = `RATE#KEY#${bucket.keyId}#${day.id}`;
    const [minuteOutcome, dayOutcome] = await Promise.all([
      this.bump(`RATE#KEY#${bucket.keyId}#${minute.id}`, minute, this.limits.perMinute),
      this.bump(dayKey, day, this.limits.perDay),
    ]);
    if (!minuteOutcome.admitted && dayOutcome.admitted) await this.giveBack(dayKey);
    return decideKeyRequest({ now, limits: this.limits, minute: minuteOutcome, day: dayOutcome });
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
      const count = out.Attributes?.['requests'];
      if (typeof count !== 'number') throw new DependencyError(`Rate counter ${pk} returned no count`);
      return { admitted: true, count };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { admitted: false };
      if (error instanceof DependencyError) throw error;
      throw new DependencyError('Rate counter update failed', { cause: error });
    }
  }

  private async giveBack(pk: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk },
          UpdateExpression: 'ADD #requests :minusOne',
          ConditionExpression: 'attribute_exists(#requests)',
          ExpressionAttributeNames: { '#requests': 'requests' },
          ExpressionAttributeValues: { ':minusOne': -1 },
        }),
      );
    } catch (error) {
      // Losing the give-back only makes the day stricter by one request: the 429 still stands,
      // so the request is not failed for it.
      if (!(error instanceof ConditionalCheckFailedException)) logger.warn('Rate counter give-back failed', { pk, error });
    }
  }
}
