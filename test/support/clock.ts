/**
 * Fixed instants for store tests, always in the future of the real date. DynamoDB Local deletes an
 * item within seconds once its TTL (expiresAt) has passed, so a hard-coded `now` that the calendar
 * has overtaken makes idempotency records and rate counters vanish in the middle of a test (see
 * test/store/dynamodb-rate-limiter.test.ts). Derived from Date.now(), these never go stale.
 */
const DAY_MS = 86_400_000;

/** 09:30:00.000 UTC, `daysAhead` days from today: a whole minute, far from a day's or month's edge by hours. */
export function futureInstant(daysAhead = 30): Date {
  const day = Math.floor(Date.now() / DAY_MS) * DAY_MS + daysAhead * DAY_MS;
  return new Date(day + 9.5 * 3_600_000);
}

/** The allowance cycle (`YYYY-MM`, UTC) an instant falls in. */
export function cycleOf(instant: Date): string {
  return instant.toISOString().slice(0, 7);
}
