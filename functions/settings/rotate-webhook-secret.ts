/**
 * POST /settings/webhooks/{id}/rotate: a new signing secret, shown once in this response's page;
 * the old one keeps signing beside it for 24 hours. Another user's endpoint id is a 404.
 */
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { webhookEndpoints } from '../webhooks/wiring.js';
import { newSecretPage } from '../../lib/web/pages/webhooks-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { orWebhookNotFound } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints => (built ??= webhookEndpoints({ cipher: tokenCipherFromEnv() }));

export const handler = signedInHandler(async (request, signedIn) => {
  const { secret, ...endpoint } = (await orWebhookNotFound(() => endpoints().rotateSecret(signedIn.caller, request.pathParameters.id ?? ''))).body;
  return { kind: 'page', title: 'New signing secret', body: newSecretPage(endpoint, secret, true) };
});
