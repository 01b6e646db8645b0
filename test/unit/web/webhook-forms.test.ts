/** The Webhooks page's side of the use case: the add form as a body, refusals in words, and pages that escape what users typed. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/domain/errors.js';
import { checkDescription, checkEnabledEvents, checkWebhookUrl, type WebhookEndpointView } from '../../../lib/domain/webhooks.js';
import { endpointPage, newSecretPage, webhooksPage } from '../../../lib/web/pages/webhooks-page.js';
import { WebError } from '../../../lib/web/web-errors.js';
import { endpointBody, readEndpointForm, refusal } from '../../../lib/web/webhook-forms.js';

const HOSTILE = `"><script>alert('x')</script>`;

function endpoint(changes: Partial<WebhookEndpointView> = {}): WebhookEndpointView {
  return {
    object: 'webhook_endpoint',
    id: 'we_AAAAAAAAAAAAAAAAAAAA',
    url: 'https://example.com/hooks',
    enabledEvents: ['*'],
    description: null,
    status: 'enabled',
    disabledReason: null,
    createdAt: '2026-11-25T09:00:00.000Z',
    ...changes,
  };
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

describe('the add form', () => {
  it('reads each ticked event type by its own name, and nothing it does not know', () => {
    const form = readEndpointForm({ url: ' https://example.com/h ', 'event:post.failed': 'on', 'event:account.connected': 'on', 'event:evil': 'on', description: '  Orders ' });
    expect(form).toEqual({ url: 'https://example.com/h', description: 'Orders', events: ['post.failed', 'account.connected'] });
    expect(endpointBody(form)).toEqual({ url: 'https://example.com/h', enabledEvents: ['post.failed', 'account.connected'], description: 'Orders' });
  });

  it('sends ["*"] when All events is ticked beside single types, and no description when none was typed', () => {
    const form = readEndpointForm({ url: 'https://example.com/h', 'event:*': 'on', 'event:post.failed': 'on' });
    expect(endpointBody(form)).toEqual({ url: 'https://example.com/h', enabledEvents: ['*'] });
    // The use case takes what the form makes.
    expect(checkEnabledEvents(endpointBody(form).enabledEvents)).toEqual(['*']);
  });
});

describe('refusals', () => {
  it('says in words what the use case refused, with its 4xx status', () => {
    expect(refusal(thrown(() => checkWebhookUrl('http://example.com/', { allowLoopbackHttp: false })))).toEqual({
      status: 400,
      message: 'The URL must use https (plain http is not accepted).',
    });
    expect(refusal(thrown(() => checkEnabledEvents([])))).toEqual({ status: 400, message: 'Choose at least one event, or All events.' });
    expect(refusal(thrown(() => checkDescription('x'.repeat(501))))).toEqual({ status: 400, message: 'The description may have at most 500 characters.' });
    expect(refusal(new ApiError('webhook_endpoint_disabled', 'This endpoint is disabled (PATCH status "enabled").'))).toEqual({
      status: 409,
      message: 'This endpoint is disabled and receives nothing: enable it first.',
    });
    const limit = new ApiError('too_many_webhook_endpoints', 'An account has at most 16 webhook endpoints; delete one to add another.');
    expect(refusal(limit)).toEqual({ status: 400, message: limit.message });
  });

  it('turns "not found" (another user’s endpoint too) into the 404 page, and throws anything else on', () => {
    const notFound = thrown(() => refusal(new ApiError('webhook_endpoint_not_found', 'No webhook endpoint with this id.')));
    expect(notFound).toBeInstanceOf(WebError);
    expect((notFound as WebError).status).toBe(404);
    const crash = new Error('DynamoDB is down');
    expect(thrown(() => refusal(crash))).toBe(crash);
    const internal = new ApiError('internal_error', 'boom');
    expect(thrown(() => refusal(internal))).toBe(internal);
  });
});

describe('pages', () => {
  it('escape the URL, description, disabled reason and delivery fields', () => {
    const hostile = endpoint({ url: `https://example.com/${HOSTILE}`, description: HOSTILE, status: 'disabled', disabledReason: HOSTILE });
    const pages = [
      webhooksPage({ endpoints: [hostile], csrfToken: 't', form: { url: HOSTILE, description: HOSTILE, events: [] } }).value,
      endpointPage({
        endpoint: hostile,
        csrfToken: 't',
        deliveries: [
          {
            eventId: 'evt_1',
            eventType: 'webhook.test',
            eventCreatedAt: '2026-11-25T09:00:00.000Z',
            status: 'failed',
            attempts: 1,
            lastStatusCode: null,
            lastLatencyMs: 10_000,
            lastError: HOSTILE,
            lastAttemptAt: '2026-11-25T09:00:01.000Z',
            nextAttemptAt: null,
          },
        ],
      }).value,
    ];
    for (const page of pages) {
      expect(page).not.toContain('<script>');
      expect(page).toContain('&lt;script&gt;');
    }
  });

  it('show the secret in the secret page’s field only, and say the old one signs for 24 hours after a rotation', () => {
    const secret = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
    const created = newSecretPage(endpoint(), secret, false).value;
    expect(created.split(secret)).toHaveLength(2);
    expect(created).toContain('shown only this once');
    expect(created).not.toContain('24 hours');
    expect(newSecretPage(endpoint(), secret, true).value).toContain('keeps signing beside this one for 24 hours');
  });
});
