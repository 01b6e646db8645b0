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
 * How many of `wanted` units fit when `used` of `limit` are spent: the first k targets in request
 * order are accepted, the rest are rejected quota_exceeded.
 */
export function unitsThatFit(wanted: number, used: number, limit: number): number {
  return Math.max(0, Math.min(wanted, limit - used));
}
