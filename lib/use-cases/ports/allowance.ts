/** The plan allowance as spent so far (lib/domain/allowance.ts), read without spending any. */
export interface AllowanceReader {
  /** Units of the plan allowance spent in a cycle (YYYY-MM); 0 when none yet. */
  allowanceUsed(userId: string, cycle: string): Promise<number>;
}
