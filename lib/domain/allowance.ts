/**
 * Plan allowance (decisions.md "Plan allowance"): accepted non-draft posts per calendar month in
 * UTC. A post spends its unit in the month it is CREATED (the check has to be atomic at create
 * time, when the scheduled month may not have begun); the post records that month so a cancel
 * gives the unit back to the right cycle.
 */
export function allowanceCycle(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/**
 * When a cycle's counter may be deleted (DynamoDB TTL, epoch seconds): the first instant of the
 * third month after the cycle. Until then it is still needed: a post created on the cycle's last
 * day may be scheduled 30 days ahead, and cancelling it gives its unit back to this cycle, up to
 * 30 days after the cycle ended (a refund to a deleted counter would start a new one at -1).
 */
export function allowanceCounterExpiresAt(cycle: string): number {
  const [year, month] = cycle.split('-').map(Number);
  if (!year || !month) throw new Error(`Not an allowance cycle: ${cycle}`);
  return Date.UTC(year, month - 1 + 3, 1) / 1000;
}

/**
 * How many of `wanted` units fit when `used` of `limit` are spent: the first k targets in request
 * order are accepted, the rest are rejected quota_exceeded.
 */
export function unitsThatFit(wanted: number, used: number, limit: number): number {
  return Math.max(0, Math.min(wanted, limit - used));
}
