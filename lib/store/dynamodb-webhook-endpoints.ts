/**
 * Webhook endpoints in the webhooks table (tables.ts): each under its owner's key, beside the
 * owner's endpoint count. The cap is a condition on that count in the create's own transaction;
 * failingSince is present only while a run of failures is under way, never stored as NULL.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { PageKey } from '../domain/cursor.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import { MAX_WEBHOOK_ENDPOINTS, type WebhookEndpoint } from '../domain/webhooks.js';
import type { EndpointChanges, WebhookEndpointStore } from '../use-cases/ports/webhooks.js';
import { isConditionFailure, writtenIfConditionHolds } from './directory-table.js';
import { nullableString, readItem } from './item-schema.js';
import { WebhooksTable, webhookKeys, type WebhooksTableOptions } from './webhooks-table.js';

const ENDPOINT_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  url: v.string(),
  enabledEvents: v.array(v.string()),
  description: nullableString,
  status: v.picklist(['enabled', 'disabled']),
  disabledReason: nullableString,
  createdAt: v.string(),
  updatedAt: v.string(),
  secrets: v.array(v.object({ encrypted: v.string(), createdAt: v.string(), expiresAt: nullableString })),
  failingSince: nullableString,
});

/**
 * An endpoint's item as stored: failingSince only while a run of failures is under way. Its
 * absence is what means "no run" to markFailing's condition, so it is never written as NULL.
 */
function endpointItem(endpoint: WebhookEndpoint): Record<string, unknown> {
  const { failingSince, ...rest } = endpoint;
  return failingSince === null ? rest : { ...rest, failingSince };
}

export function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  return readItem(ENDPOINT_ITEM, item, `Webhook endpoint ${String(item.sk)}`);
}

export class DynamoDbWebhookEndpoints implements WebhookEndpointStore {
  private readonly table: WebhooksTable;

  constructor(options: WebhooksTableOptions | WebhooksTable = {}) {
    this.table = options instanceof WebhooksTable ? options : new WebhooksTable(options);
  }

  async createEndpoint(endpoint: WebhookEndpoint, remember: IdempotencyCompletion | null = null): Promise<'created' | 'limit_reached'> {
    const failed = await this.table.transact(
      [
        {
          // The cap is a condition on the counter in the same transaction: two creates at once
          // cannot both take the 16th place (a read-then-write could).
          Update: {
            TableName: this.table.name,
            Key: webhookKeys.endpointCount(endpoint.userId),
            UpdateExpression: 'ADD #count :one',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1, ':max': MAX_WEBHOOK_ENDPOINTS },
          },
        },
        {
          Put: {
            TableName: this.table.name,
            Item: { ...webhookKeys.endpoint(endpoint.userId, endpoint.id), ...endpointItem(endpoint) },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
      remember,
    );
    if (failed === 0) return 'limit_reached';
    if (failed === 1) throw new Error(`Webhook endpoint ${endpoint.id} already exists`);
    return 'created';
  }


  async getEndpoint(userId: string, endpointId: string): Promise<WebhookEndpoint | null> {
    const out = await this.table.client.send(new GetCommand({ TableName: this.table.name, Key: webhookKeys.endpoint(userId, endpointId), ConsistentRead: true }));
    return out.Item ? toEndpoint(out.Item) : null;
  }


  async listEndpoints(userId: string, page: { limit: number; startKey: PageKey | null }): Promise<{ endpoints: WebhookEndpoint[]; nextKey: PageKey | null }> {
    if (page.startKey !== null && (page.startKey.pk !== `USER#${userId}` || !String(page.startKey.sk ?? '').startsWith('ENDPOINT#'))) {
      throw Object.assign(new Error('page key not of this list'), { code: 'invalid_page_key' });
    }
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'ENDPOINT#' },
        Limit: page.limit,
        ...(page.startKey === null ? {} : { ExclusiveStartKey: page.startKey }),
      }),
    );
    const last = out.LastEvaluatedKey;
    return {
      endpoints: (out.Items ?? []).map(toEndpoint),
      nextKey: last ? { pk: String(last.pk), sk: String(last.sk) } : null,
    };
  }


  async allEndpoints(userId: string): Promise<WebhookEndpoint[]> {
    const out = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'ENDPOINT#' },
      }),
    );
    return (out.Items ?? []).map(toEndpoint);
  }


  async updateEndpoint(userId: string, endpointId: string, changes: EndpointChanges, now: Date): Promise<WebhookEndpoint | null> {
    const entries = Object.entries({ ...changes, updatedAt: now.toISOString() }).filter(([, value]) => value !== undefined);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    entries.forEach(([name, value], index) => {
      names[`#f${index}`] = name;
      // A run of failures that ends is removed, never kept as NULL (see endpointItem).
      if (name === 'failingSince' && value === null) {
        removes.push(`#f${index}`);
        return;
      }
      values[`:v${index}`] = value;
      sets.push(`#f${index} = :v${index}`);
    });
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: webhookKeys.endpoint(userId, endpointId),
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? toEndpoint(out.Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }


  async replaceSecrets(after: WebhookEndpoint, readUpdatedAt: string, remember: IdempotencyCompletion | null): Promise<'applied' | 'changed'> {
    const update = {
      TableName: this.table.name,
      Key: webhookKeys.endpoint(after.userId, after.id),
      UpdateExpression: 'SET secrets = :secrets, updatedAt = :updatedAt',
      ConditionExpression: 'updatedAt = :readUpdatedAt',
      ExpressionAttributeValues: { ':secrets': after.secrets, ':updatedAt': after.updatedAt, ':readUpdatedAt': readUpdatedAt },
    };
    if (remember) return (await this.table.transact([{ Update: update }], remember)) < 0 ? 'applied' : 'changed';
    return (await this.table.conditionalUpdate(update)) ? 'applied' : 'changed';
  }


  async disableEndpoint(userId: string, endpointId: string, reason: string, now: Date): Promise<boolean> {
    return writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: webhookKeys.endpoint(userId, endpointId),
          UpdateExpression: 'SET #status = :disabled, disabledReason = :reason, updatedAt = :now',
          ConditionExpression: '#status = :enabled',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':disabled': 'disabled', ':enabled': 'enabled', ':reason': reason, ':now': now.toISOString() },
        }),
      ),
    );
  }


  async markFailing(userId: string, endpointId: string, now: Date): Promise<string | null> {
    try {
      await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: webhookKeys.endpoint(userId, endpointId),
          UpdateExpression: 'SET failingSince = :now',
          // Starts a run only where none is under way. An endpoint written before NULL was kept
          // out of this attribute may hold a NULL, which means no run too (if_not_exists would
          // keep it, and the endpoint would never be disabled).
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(failingSince) OR attribute_type(failingSince, :null))',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':null': 'NULL' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return now.toISOString();
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A run under way (its start, the item as it was), or no endpoint (no item).
      const since = (error as { Item?: Record<string, { S?: string }> }).Item?.failingSince?.S;
      return since ?? null;
    }
  }


  async clearFailing(userId: string, endpointId: string): Promise<void> {
    await writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: webhookKeys.endpoint(userId, endpointId),
          // Written only when set: a healthy endpoint's successes cost no write here.
          UpdateExpression: 'REMOVE failingSince',
          ConditionExpression: 'attribute_exists(failingSince)',
        }),
      ),
    );
  }


  async deleteEndpoint(userId: string, endpointId: string): Promise<boolean> {
    const failed = await this.table.transact(
      [
        { Delete: { TableName: this.table.name, Key: webhookKeys.endpoint(userId, endpointId), ConditionExpression: 'attribute_exists(pk)' } },
        {
          Update: {
            TableName: this.table.name,
            Key: webhookKeys.endpointCount(userId),
            UpdateExpression: 'ADD #count :minusOne',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ],
      null,
    );
    return failed < 0;
  }
}
