/**
 * GET /settings/webhooks: the user's webhook endpoints, their recent events and the add form; with `?endpoint=we_…`
 * that endpoint, its recent deliveries and its actions; with `&confirm=delete` the question before
 * deleting it. One page function for the three (the actions are POSTs of their own).
 */
import { webhookEndpoints } from '../webhooks/wiring.js';
import { deleteEndpointPage, endpointPage, webhooksPage } from '../../lib/web/pages/webhooks-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { orWebhookNotFound } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';
import { DynamoDbEventStore } from '../../lib/store/dynamodb-event-store.js';
import { Events } from '../../lib/use-cases/events.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints => (built ??= webhookEndpoints({}));
let builtEvents: Events | undefined;
const events = (): Events =>
  (builtEvents ??= new Events({ events: new DynamoDbEventStore(), clock: systemClock, cursorSigningKey: () => Promise.reject(new Error('The settings page signs no cursor')) }));
/** Recent events the list page shows. */
const RECENT_EVENTS = 25;

const LIST_NOTICES: Record<string, string> = { deleted: 'Endpoint deleted: nothing more is sent to it.' };
const ENDPOINT_NOTICES: Record<string, string> = {
  test: 'Test event queued: it appears below once sent (Refresh).',
  resent: 'Delivery queued again: its new attempt appears below once sent (Refresh).',
  disabled: 'Endpoint disabled: it receives nothing until you enable it.',
  enabled: 'Endpoint enabled.',
};

export const handler = signedInHandler(async (request, signedIn) => {
  const csrfToken = signedIn.session.csrfToken;
  const endpointId = request.query.endpoint;
  if (endpointId === undefined) {
    const notice = LIST_NOTICES[request.query.done ?? ''];
    const [all, recent] = await Promise.all([endpoints().all(signedIn.caller), events().recent(signedIn.caller, RECENT_EVENTS)]);
    return { kind: 'page', title: 'Webhooks', body: webhooksPage({ endpoints: all, events: recent, csrfToken, ...(notice ? { notice: { text: notice } } : {}) }) };
  }
  if (request.query.confirm === 'delete') {
    const endpoint = await orWebhookNotFound(() => endpoints().get(signedIn.caller, endpointId));
    return { kind: 'page', title: 'Delete webhook endpoint', body: deleteEndpointPage(endpoint, csrfToken) };
  }
  const [endpoint, deliveries] = await orWebhookNotFound(() =>
    Promise.all([endpoints().get(signedIn.caller, endpointId), endpoints().recentDeliveries(signedIn.caller, endpointId)]),
  );
  const notice = ENDPOINT_NOTICES[request.query.done ?? ''];
  return { kind: 'page', title: 'Webhook endpoint', body: endpointPage({ endpoint, deliveries, csrfToken, ...(notice ? { notice: { text: notice } } : {}) }) };
});
