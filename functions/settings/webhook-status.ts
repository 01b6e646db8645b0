/** POST /settings/webhooks/{id}/status: disables or enables the caller's endpoint (form `status`); another user's id is a 404. */
import { webhookEndpoints } from '../webhooks/wiring.js';
import { endpointPath } from '../../lib/web/pages/webhooks-page.js';
import { badRequest } from '../../lib/web/web-errors.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { orWebhookNotFound } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints => (built ??= webhookEndpoints({}));

export const handler = signedInHandler(async (request, signedIn) => {
  const status = request.form.status;
  if (status !== 'enabled' && status !== 'disabled') throw badRequest('Choose Enable or Disable.');
  const endpointId = request.pathParameters.id ?? '';
  await orWebhookNotFound(() => endpoints().update(signedIn.caller, endpointId, { status }));
  return { kind: 'redirect', location: `${endpointPath(endpointId)}&done=${status}` };
});
