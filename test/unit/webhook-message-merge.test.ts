/**
 * One receive's batch messages of one endpoint delivered as one (mergeBatchMessages,
 * lib/use-cases/webhooks/deliver-webhook.ts); retries, resends and tests stay alone.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookQueueMessage } from '../../lib/use-cases/ports/webhooks.js';
import { mergeBatchMessages } from '../../lib/use-cases/webhooks/deliver-webhook.js';

const event = (id: string) => ({ eventId: id, eventCreatedAt: '2026-01-01T00:00:00.000Z' });
const batch = (endpointId: string, ids: string[], userId = 'user_1'): WebhookQueueMessage => ({ userId, endpointId, events: ids.map(event) });
const attempt = (endpointId: string, eventId: string): WebhookQueueMessage => ({ userId: 'user_1', endpointId, eventId, eventCreatedAt: '2026-01-01T00:00:00.000Z', attempt: 2, notBefore: null });

describe('mergeBatchMessages', () => {
  it('merges one endpoint\'s batch messages in the order received, and leaves single attempts and other endpoints apart', () => {
    const merged = mergeBatchMessages([
      { id: 'm1', message: batch('we_a', ['e1', 'e2']) },
      { id: 'm2', message: attempt('we_a', 'e0') },
      { id: 'm3', message: batch('we_b', ['e3']) },
      { id: 'm4', message: batch('we_a', ['e4']) },
      { id: 'm5', message: batch('we_a', ['e5'], 'user_2') },
    ]);
    expect(merged).toEqual([
      { ids: ['m1', 'm4'], message: batch('we_a', ['e1', 'e2', 'e4']) },
      { ids: ['m2'], message: attempt('we_a', 'e0') },
      { ids: ['m3'], message: batch('we_b', ['e3']) },
      // The same endpoint id under another user is not merged: the message's user is checked against the endpoint's.
      { ids: ['m5'], message: batch('we_a', ['e5'], 'user_2') },
    ]);
  });
});
