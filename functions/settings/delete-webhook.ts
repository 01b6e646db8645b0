/** POST /settings/webhooks/{id}/delete: deletes the caller's endpoint after the confirmation page; another user's id is a 404. */
import { webhookEndpoints } from '../webhooks/wiring.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { orWebhookNotFound } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints => (built ??= webhookEndpoints({}));

export const handler = signedInHandler(async (request, signedIn) => {
  await orWebhookNotFound(() => endpoints().remove(signedIn.caller, request.pathParameters.id ?? ''));
  return { kind: 'redirect', location: '/settings/webhooks?done=deleted' };
});
