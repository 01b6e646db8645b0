/**
 * The webhook router's store: the store, and the router's writes of a batch (putRouted): each event
 * with its deliveries in one TransactWriteItems (up to 100 items; a change's items never split, so
 * no delivery is ever in the table without its event), the event as made from its stream record
 * (writing it again writes the same bytes), each delivery only if absent (a replay never resets one
 * already attempted). A transaction is all or nothing: when a replay's existing deliveries cancel
 * it, the rest is written one item at a time, the events first. In its own module so the API's
 * webhook functions do not bundle the router's writes (bench/bundle-ceilings.ts).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { RoutedEvent, WebhookEventRecord, WebhookRoutingWrites } from '../use-cases/ports/webhooks.js';
import { DynamoDbWebhookStore } from './dynamodb-webhook-store.js';
import { MAX_TRANSACTION_ITEMS } from './dynamodb-limits.js';


export class DynamoDbWebhookRoutingStore extends DynamoDbWebhookStore implements WebhookRoutingWrites {
  async putRouted(routed: readonly RoutedEvent[]): Promise<void> {
    // An event with its deliveries in one transaction (a change's items are never split), so no
    // delivery is ever in the table without its event; up to MAX_TRANSACTION_ITEMS items each.
    const groups: RoutedEvent[][] = [];
    let size = 0;
    for (const one of routed) {
      const items = 1 + one.deliveries.length;
      if (groups.length === 0 || size + items > MAX_TRANSACTION_ITEMS) {
        groups.push([]);
        size = 0;
      }
      groups[groups.length - 1]!.push(one);
      size += items;
    }
    await Promise.all(groups.map((group) => this.writeRouted(group)));
  }

  private async writeRouted(group: readonly RoutedEvent[]): Promise<void> {
    const writes = group.flatMap(({ event, deliveries }) => [
      { event, delivery: null },
      ...deliveries.map((delivery) => ({ event: null, delivery })),
    ]);
    if (writes.length === 1) {
      await this.putEventItem(group[0]!.event);
      return;
    }
    try {
      await this.table.client.send(
        new TransactWriteCommand({
          TransactItems: writes.map(({ event, delivery }) => ({ Put: event ? this.eventPut(event) : this.deliveries.deliveryPut(delivery!) })),
        }),
      );
    } catch (error) {
      // All or nothing: a delivery that exists (a replay) cancels the others, which are then written
      // one by one; so does a conflict with another write.
      if (!(error instanceof TransactionCanceledException)) throw error;
      // The events first, as in the transaction: a delivery is never written before its event.
      const existed = new Set((error.CancellationReasons ?? []).flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : [])));
      await Promise.all(writes.map(({ event }) => (event ? this.putEventItem(event) : undefined)));
      await Promise.all(writes.map(({ delivery }, index) => (delivery && !existed.has(index) ? this.putDelivery(delivery) : undefined)));
    }
  }

  private eventPut(event: WebhookEventRecord): { TableName: string; Item: Record<string, unknown> } {
    return { TableName: this.table.name, Item: this.events.eventItem(event) };
  }

  private async putEventItem(event: WebhookEventRecord): Promise<void> {
    await this.table.client.send(new PutCommand(this.eventPut(event)));
  }
}
