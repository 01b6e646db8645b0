/**
 * POST /settings/webhooks: adds an endpoint and shows its signing secret once, in this response's
 * page only (never in a URL or a redirect; every settings page is no-store). A refused URL, no
 * event chosen or the 16-endpoint limit shows the page again with the reason and the form as typed.
 * The form's submission key is the create's Idempotency-Key: the same form sent again shows the
 * same endpoint and secret (lib/web/webhook-forms.ts SUBMISSION_FIELD).
 */
import { DnsWebhookUrlResolver } from '../../lib/egress/webhook-sender.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { tokenCipherFromEnv } from '../../lib/store/token-cipher.js';
import { webhookEndpoints } from '../webhooks/wiring.js';
import { newSecretPage, webhooksPage } from '../../lib/web/pages/webhooks-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { endpointBody, readEndpointForm, refusal, submissionKey } from '../../lib/web/webhook-forms.js';
import type { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

let built: WebhookEndpoints | undefined;
/** Built at the first request, once per cold start, with only the parts this action uses. */
const endpoints = (): WebhookEndpoints =>
  (built ??= webhookEndpoints({ idempotency: new DynamoDbIdempotencyStore(), cipher: tokenCipherFromEnv(), resolver: new DnsWebhookUrlResolver() }));

export const handler = signedInHandler(async (request, signedIn) => {
  const form = readEndpointForm(request.form);
  try {
    const created = await endpoints().create(signedIn.caller, endpointBody(form), { idempotencyKey: submissionKey(request.form) });
    const { secret, ...endpoint } = created.body;
    return { kind: 'page', status: 201, title: 'Your new webhook endpoint', body: newSecretPage(endpoint, secret, false) };
  } catch (error) {
    const refused = refusal(error);
    const body = webhooksPage({ endpoints: await endpoints().all(signedIn.caller), csrfToken: signedIn.session.csrfToken, notice: { text: refused.message, error: true }, form });
    return { kind: 'page', status: refused.status, title: 'Webhooks', body };
  }
});
