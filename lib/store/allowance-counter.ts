/**
 * The plan allowance's counter item in the counters table (`ALLOWANCE#<userId>#<YYYY-MM>`, tables.ts)
 * and the one update that spends or gives back its units. Its own module so that the publish worker,
 * which only ever gives a unit back (a post deleted before it went out), does not bundle the create
 * path's transactions.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { allowanceCounterExpiresAt } from '../domain/allowance.js';
import type { AllowanceReader } from '../use-cases/ports/allowance.js';
import { documentClient } from './dynamo-client.js';
// The publish worker may write these counters and no other (IAM dynamodb:LeadingKeys).
import { ALLOWANCE_KEY_PREFIX, COUNTERS_TABLE } from './tables.js';

export function allowanceCounterKey(userId: string, cycle: string): { pk: string } {
  return { pk: `${ALLOWANCE_KEY_PREFIX}${userId}#${cycle}` };
}

/** Spends (or gives back) units, and gives a new counter its expiry (lib/domain/allowance.ts). */
export const ALLOWANCE_UPDATE = 'ADD used :units SET expiresAt = if_not_exists(expiresAt, :expiresAt)';

/** The Update of one transaction item that gives `units` back to (negative) or spends them from the cycle's counter. */
export function allowanceCounterUpdate(countersTable: string, userId: string, cycle: string, units: number) {
  return {
    TableName: countersTable,
    Key: allowanceCounterKey(userId, cycle),
    UpdateExpression: ALLOWANCE_UPDATE,
    ExpressionAttributeValues: { ':units': units, ':expiresAt': allowanceCounterExpiresAt(cycle) },
  };
}

/** The counter read, nothing spent (one GetItem): what a preview and the Overview page show. */
export class DynamoDbAllowanceReader implements AllowanceReader {
  private readonly countersTable: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { countersTable?: string; client?: DynamoDBDocumentClient } = {}) {
    this.countersTable = options.countersTable ?? requireEnv(COUNTERS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async allowanceUsed(userId: string, cycle: string): Promise<number> {
    const out = await this.client.send(new GetCommand({ TableName: this.countersTable, Key: allowanceCounterKey(userId, cycle) }));
    const used = out.Item?.used;
    return typeof used === 'number' ? used : 0;
  }
}
