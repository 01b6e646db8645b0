/**
 * Checks shared by the HTTP tests of the pipeline: the error shape of api-v1.md, the rate-limit
 * headers every response carries, and a guard that keeps a counted sequence inside one minute.
 */
import { expect } from 'vitest';
import type { ApiResponse } from './http.js';

export interface RateHeaders {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: number | null;
}

/** The X-RateLimit-* (and Retry-After) headers, asserted present and numeric. */
export function rateHeaders(response: ApiResponse): RateHeaders {
  const read = (name: string): number => {
    const value = response.headers[name];
    expect(value, `header ${name} on a ${response.status}`).toMatch(/^\d+$/);
    return Number(value);
  };
  const retry = response.headers['retry-after'];
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
    retryAfter: retry === undefined ? null : Number(retry),
  };
}

/** `{error: {type, code, message, param}}` and nothing else, with JSON content type and rate headers. */
export function expectApiError(
  response: ApiResponse,
  expected: { status: number; type: string; code: string; param?: string | null },
): void {
  expect(response.status, response.text).toBe(expected.status);
  expect(response.headers['content-type']).toBe('application/json');
  const body = response.body as { error?: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error).toMatchObject({ type: expected.type, code: expected.code, param: expected.param ?? null });
  expect(typeof body.error?.['message']).toBe('string');
  rateHeaders(response);
}

/**
 * Fixed windows reset on the UTC minute: a sequence of counted requests that crossed it would see
 * two windows. When less than `secondsNeeded` of this minute is left, wait for the next one.
 */
export async function startOfRoomyMinute(secondsNeeded = 15): Promise<void> {
  const intoMinuteMs = Date.now() % 60_000;
  const leftMs = 60_000 - intoMinuteMs;
  if (leftMs < secondsNeeded * 1000) await new Promise((resolve) => setTimeout(resolve, leftMs + 50));
}

export function nextUtcMidnight(now: Date = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
}
