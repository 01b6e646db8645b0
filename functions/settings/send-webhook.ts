/**
 * POST /settings/webhooks/{id}/send: sends a `webhook.test` event to the endpoint now, or, with the
 * form's `eventId`, that delivery again (one attempt). A disabled endpoint shows its page with the
 * reason; another user's endpoint id is a 404.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../../lib/config.js';
import { SqsWebhookQueue } from '../../lib/dispatch/webhook-queue.js';
import { webhookEndpoints } from '../webhooks/wiring.js';
import { endpointPage, endpointPath } from '../../lib/web/pages/webhooks-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { orWebhookNotFound, refusal } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints => (built ??= webhookEndpoints({ queue: new SqsWebhookQueue(new SQSClient({}), requireEnv(ENV.webhookQueueUrl)) }));

export const handler = signedInHandler(async (request, signedIn) => {
  const endpointId = request.pathParameters.id ?? '';
  const eventId = request.form.eventId;
  try {
    if (eventId === undefined) await endpoints().sendTest(signedIn.caller, endpointId);
    else await endpoints().resend(signedIn.caller, endpointId, eventId);
    return { kind: 'redirect', location: `${endpointPath(endpointId)}&done=${eventId === undefined ? 'test' : 'resent'}` };
  } catch (error) {
    const refused = refusal(error);
    const [endpoint, deliveries] = await orWebhookNotFound(() =>
      Promise.all([endpoints().get(signedIn.caller, endpointId), endpoints().recentDeliveries(signedIn.caller, endpointId)]),
    );
    const body = endpointPage({ endpoint, deliveries, csrfToken: signedIn.session.csrfToken, notice: { text: refused.message, error: true } });
    return { kind: 'page', status: refused.status, title: 'Webhook endpoint', body };
  }
});
