/**
 * Webhooks (beyond-v1.md "Webhook endpoints", "Delivery"): the endpoints with their status (and
 * why one is disabled), the recent events (beyond-v2.md, with or without an endpoint) and the add form; one endpoint with its recent deliveries and its actions
 * (send a test event, resend a delivery, rotate the secret, disable or enable, delete after a
 * confirmation); the one-time display of a signing secret. Every POST carries the CSRF token.
 */
import { randomToken } from '../../domain/ids.js';
import { WEBHOOK_EVENT_TYPES, type ChangeEventType, type WebhookEndpointView, type WebhookEventEnvelope } from '../../domain/webhooks.js';
import type { DeliveryView } from '../../use-cases/webhooks/endpoints.js';
import { html, type Html } from '../html.js';
import { ALL_EVENTS, EVENT_FIELD_PREFIX, SUBMISSION_FIELD, type EndpointForm } from '../webhook-forms.js';
import { formatTime } from './format.js';
import { csrfField } from './layout.js';

/** What each event type means, in the words of beyond-v1.md's Events table. */
const EVENT_MEANINGS: Record<ChangeEventType, string> = {
  'post.published': 'a post is live on its platform',
  'post.failed': 'a post failed',
  'post.platform_deleted': 'a live post was deleted on its platform',
  'account.connected': 'an account was connected or reconnected',
  'account.disconnected': 'an account was disconnected',
  'account.token_health_changed': 'an account’s connection health changed (it may need reconnecting)',
  'media.ready': 'an uploaded or imported file is ready to post',
  'media.failed': 'an uploaded or imported file was refused (the media says why)',
};

/** Delivery statuses as a person reads them. */
const DELIVERY_RESULT: Record<DeliveryView['status'], { label: string; badge: string }> = {
  succeeded: { label: 'Delivered', badge: 'ok' },
  failed: { label: 'Failed', badge: 'bad' },
  pending: { label: 'Pending', badge: 'warn' },
  cancelled: { label: 'Cancelled', badge: 'muted' },
};

export interface Notice {
  text: string;
  error?: boolean;
}

function noticeHtml(notice: Notice | undefined): Html | '' {
  if (!notice) return '';
  return html`<p class="notice ${notice.error ? 'error' : 'ok'}" role="${notice.error ? 'alert' : 'status'}">${notice.text}</p>`;
}

export const endpointPath = (endpointId: string): string => `/settings/webhooks?endpoint=${encodeURIComponent(endpointId)}`;

function eventsText(endpoint: WebhookEndpointView): Html {
  if (endpoint.enabledEvents.includes(ALL_EVENTS)) return html`All events`;
  return html`${endpoint.enabledEvents.map((type, index) => html`${index > 0 ? ', ' : ''}<code>${type}</code>`)}`;
}

function statusHtml(endpoint: WebhookEndpointView): Html {
  if (endpoint.status === 'enabled') return html`<span class="badge ok">Enabled</span>`;
  return html`<span class="badge bad">Disabled</span>${endpoint.disabledReason ? html`<p class="error-text">${endpoint.disabledReason}</p>` : ''}`;
}

function addForm(csrfToken: string, form: EndpointForm | undefined): Html {
  const chosen = form?.events ?? [ALL_EVENTS];
  const box = (type: string, label: Html) =>
    html`<label class="check"><input type="checkbox" name="${EVENT_FIELD_PREFIX}${type}"${chosen.includes(type) ? html` checked` : ''}> <span>${label}</span></label>`;
  return html`<section class="card" id="add" aria-labelledby="add-heading">
  <h2 id="add-heading">Add an endpoint</h2>
  <form method="post" action="/settings/webhooks" class="stack-form">${csrfField(csrfToken)}<input type="hidden" name="${SUBMISSION_FIELD}" value="${randomToken(24)}">
    <div><label for="webhook-url">Endpoint URL</label>
      <input type="url" id="webhook-url" name="url" required maxlength="2048" placeholder="https://example.com/webhooks" value="${form?.url ?? ''}" aria-describedby="webhook-url-help">
      <p class="muted hint" id="webhook-url-help">An <code>https</code> URL of your server that the internet can reach: private and local addresses are refused, and redirects are not followed.</p></div>
    <fieldset><legend>Events to send</legend>
      ${box(ALL_EVENTS, html`<strong>All events</strong>, including types added later`)}
      ${WEBHOOK_EVENT_TYPES.map((type) => box(type, html`<code>${type}</code>: ${EVENT_MEANINGS[type]}`))}
    </fieldset>
    <div><label for="webhook-description">Description <span class="muted">(optional)</span></label>
      <input type="text" id="webhook-description" name="description" maxlength="500" value="${form?.description ?? ''}"></div>
    <div><button type="submit" class="primary">Add endpoint</button></div>
  </form>
</section>`;
}

export interface WebhooksPageInput {
  endpoints: readonly WebhookEndpointView[];
  /** The newest events, recorded with or without an endpoint (GET /api/v1/events); left out of a refused add form's page. */
  events?: readonly WebhookEventEnvelope[];
  csrfToken: string;
  notice?: Notice;
  /** The add form as typed, when it was refused. */
  form?: EndpointForm;
}

export function webhooksPage(input: WebhooksPageInput): Html {
  const rows = input.endpoints.map(
    (endpoint) => html`<tr>
  <td data-label="URL"><code class="url">${endpoint.url}</code>${endpoint.description ? html`<br><span class="muted">${endpoint.description}</span>` : ''}</td>
  <td data-label="Events">${eventsText(endpoint)}</td>
  <td data-label="Status">${statusHtml(endpoint)}</td>
  <td data-label="Added">${formatTime(endpoint.createdAt)}</td>
  <td><a class="button" href="${endpointPath(endpoint.id)}">Deliveries and actions<span class="visually-hidden"> for ${endpoint.url}</span></a></td>
</tr>`,
  );
  const list =
    input.endpoints.length === 0
      ? html`<section class="card" aria-labelledby="empty-heading">
  <h2 id="empty-heading">No webhook endpoints yet</h2>
  <p>Webhooks tell your server the moment something happens, so it need not poll: a post went live or failed, an account was connected, disconnected or needs reconnecting. Each event is signed (Standard Webhooks) and retried for a day and more until your server answers 2xx.</p>
  <p><a class="button primary" href="#add">Add an endpoint</a></p>
</section>`
      : html`<h2>Your endpoints</h2>
<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return html`${noticeHtml(input.notice)}
${list}
${input.events ? recentEvents(input.events) : ''}
${addForm(input.csrfToken, input.form)}
<p class="muted">The same endpoints are in the API (<code>/api/v1/webhook_endpoints</code>). At most 16 per account.</p>`;
}

function recentEvents(events: readonly WebhookEventEnvelope[]): Html {
  const rows = events.map(
    (event) => html`<tr id="${event.id}">
  <td data-label="Event"><code>${event.type}</code></td>
  <td data-label="Id"><span class="muted event-id">${event.id}</span></td>
  <td data-label="Time">${formatTime(event.createdAt)}</td>
</tr>`,
  );
  return html`<section class="card" aria-labelledby="events-heading">
  <h2 id="events-heading">Recent events</h2>
  <p>Every event of your posts and accounts is kept 30 days, whether or not an endpoint receives it: your server can read what it missed from <code>GET /api/v1/events</code> (the ids are the deliveries' <code>webhook-id</code>).</p>
  ${events.length === 0
    ? html`<p class="muted">No events in the last 30 days.</p>`
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Event</th><th scope="col">Id</th><th scope="col">Time</th></tr></thead><tbody>${rows}</tbody></table></div>`}
</section>`;
}

function deliveryRow(endpoint: WebhookEndpointView, delivery: DeliveryView, csrfToken: string): Html {
  const result = DELIVERY_RESULT[delivery.status];
  return html`<tr id="${delivery.eventId}">
  <td data-label="Event"><code>${delivery.eventType}</code><br><span class="muted event-id">${delivery.eventId}</span></td>
  <td data-label="Attempt">${delivery.attempts}</td>
  <td data-label="Status code">${delivery.lastStatusCode ?? '—'}</td>
  <td data-label="Latency">${delivery.lastLatencyMs === null ? '—' : `${delivery.lastLatencyMs} ms`}</td>
  <td data-label="Time">${formatTime(delivery.lastAttemptAt ?? delivery.eventCreatedAt)}</td>
  <td data-label="Result"><span class="badge ${result.badge}">${result.label}</span>${delivery.lastError ? html`<br><span class="error-text">${delivery.lastError}</span>` : ''}${delivery.status === 'pending' && delivery.nextAttemptAt ? html`<br><span class="muted">Next try ${formatTime(delivery.nextAttemptAt)}</span>` : ''}</td>
  <td>${endpoint.status === 'enabled'
    ? html`<form method="post" action="/settings/webhooks/${endpoint.id}/send">${csrfField(csrfToken)}<input type="hidden" name="eventId" value="${delivery.eventId}"><button type="submit">Resend<span class="visually-hidden"> ${delivery.eventId}</span></button></form>`
    : ''}</td>
</tr>`;
}

export interface EndpointPageInput {
  endpoint: WebhookEndpointView;
  deliveries: readonly DeliveryView[];
  csrfToken: string;
  notice?: Notice;
}

export function endpointPage(input: EndpointPageInput): Html {
  const { endpoint, csrfToken } = input;
  const enabled = endpoint.status === 'enabled';
  const action = (path: string, label: string, extra: Html | '' = '') =>
    html`<form method="post" action="/settings/webhooks/${endpoint.id}/${path}">${csrfField(csrfToken)}${extra}<button type="submit">${label}</button></form>`;
  return html`${noticeHtml(input.notice)}
<section class="card" aria-labelledby="endpoint-heading">
  <h2 id="endpoint-heading"><code class="url">${endpoint.url}</code></h2>
  <dl class="facts">
    <dt>Status</dt><dd>${statusHtml(endpoint)}</dd>
    <dt>Events</dt><dd>${eventsText(endpoint)}</dd>
    ${endpoint.description ? html`<dt>Description</dt><dd>${endpoint.description}</dd>` : ''}
    <dt>Added</dt><dd>${formatTime(endpoint.createdAt)}</dd>
    <dt>Id</dt><dd><code>${endpoint.id}</code></dd>
  </dl>
  <div class="actions">
    ${enabled ? action('send', 'Send test event') : ''}
    ${action('rotate', 'Rotate secret')}
    ${action('status', enabled ? 'Disable' : 'Enable', html`<input type="hidden" name="status" value="${enabled ? 'disabled' : 'enabled'}">`)}
    <a class="button danger" href="${endpointPath(endpoint.id)}&amp;confirm=delete">Delete…</a>
  </div>
  ${enabled ? '' : html`<p class="muted">A disabled endpoint receives nothing, not even retries. Enabling it starts afresh: events from while it was disabled are not sent.</p>`}
</section>
<h2>Recent deliveries</h2>
${input.deliveries.length === 0
  ? html`<p class="muted">No deliveries yet.${enabled ? ' Send a test event to see one here.' : ''}</p>`
  : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status code</th><th scope="col">Latency</th><th scope="col">Time</th><th scope="col">Result</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${input.deliveries.map((delivery) => deliveryRow(endpoint, delivery, csrfToken))}</tbody></table></div>`}
<p class="actions"><a class="button" href="${endpointPath(endpoint.id)}">Refresh</a><a href="/settings/webhooks">All endpoints</a></p>`;
}

export function deleteEndpointPage(endpoint: WebhookEndpointView, csrfToken: string): Html {
  return html`<section class="card">
  <p>Delete the endpoint <code class="url">${endpoint.url}</code>?</p>
  <p>Nothing more is sent to it, retries still waiting included. This cannot be undone: to stop deliveries for a while, disable it instead.</p>
  <form method="post" action="/settings/webhooks/${endpoint.id}/delete" class="actions">${csrfField(csrfToken)}<button type="submit" class="danger">Delete endpoint</button><a class="button" href="${endpointPath(endpoint.id)}">Cancel</a></form>
</section>`;
}

/** The signing secret of a new endpoint or a rotation, in this response only (never a URL or a redirect). */
export function newSecretPage(endpoint: WebhookEndpointView, secret: string, rotated: boolean): Html {
  return html`<div class="notice warn" role="alert"><strong>Copy this signing secret now.</strong> It is shown only this once: we cannot show it again. Your server checks each delivery’s <code>webhook-signature</code> header with it (any Standard Webhooks library does), so store it where your server reads its secrets.</div>
${rotated
  ? html`<p class="notice">The previous secret keeps signing beside this one for 24 hours: until then every delivery carries two signatures, one per secret, so your server can switch to the new secret at any time within that day.</p>`
  : ''}
<section class="card">
  <label for="signing-secret">Signing secret for <code class="url">${endpoint.url}</code></label>
  <textarea id="signing-secret" class="secret" rows="2" readonly spellcheck="false" autocomplete="off">${secret}</textarea>
  <div class="actions"><button type="button" class="primary" data-copy-target="signing-secret" hidden>Copy secret</button><span id="signing-secret-status" role="status" aria-live="polite"></span></div>
</section>
<p><a class="button" href="${endpointPath(endpoint.id)}">Done, back to the endpoint</a></p>`;
}
