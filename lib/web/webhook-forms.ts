/**
 * The settings Webhooks page's side of the WebhookEndpoints use case
 * (lib/use-cases/webhooks/endpoints.ts): the add form as the body the use case takes, and the
 * use case's refusals as words on the page (a 4xx page, never a 5xx) or as the 404 page.
 *
 * The form parser keeps the first value of each name (lib/web/web-request.ts), so each event type
 * is its own checkbox name: `event:post.published`, `event:*` for all.
 */
import { ApiError } from '../domain/errors.js';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks.js';
import { notFound } from './web-errors.js';

export const EVENT_FIELD_PREFIX = 'event:';
export const ALL_EVENTS = '*';
/**
 * A hidden field of the add form, new at each rendering, sent as the create's Idempotency-Key: the
 * same form sent twice (a double click, a reload of the answer page, which resends it) adds one
 * endpoint and shows its secret again, where it added a second endpoint whose secret no one saw.
 */
export const SUBMISSION_FIELD = 'submission';

/** The add form as typed: shown again beside the reason when the endpoint is refused. */
export interface EndpointForm {
  url: string;
  description: string;
  events: string[];
}

export function readEndpointForm(form: Record<string, string>): EndpointForm {
  const chosen = [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES].filter((type) => form[`${EVENT_FIELD_PREFIX}${type}`] !== undefined);
  return { url: (form.url ?? '').trim(), description: (form.description ?? '').trim(), events: chosen };
}

/** The add form's submission key (absent from a form made before it existed: then not idempotent). */
export function submissionKey(form: Record<string, string>): string | undefined {
  return form[SUBMISSION_FIELD];
}

/** The body of POST /webhook_endpoints: "All events" wins over any single type ticked beside it. */
export function endpointBody(form: EndpointForm): { url: string; enabledEvents: string[]; description?: string } {
  return {
    url: form.url,
    enabledEvents: form.events.includes(ALL_EVENTS) ? [ALL_EVENTS] : form.events,
    ...(form.description === '' ? {} : { description: form.description }),
  };
}

/** A refusal the person can act on, in the page's words. */
export interface Refusal {
  status: number;
  message: string;
}

/**
 * The use case's 4xx refusals as a Refusal; "not found" (also another user's endpoint) as the 404
 * page; anything else is thrown on (the generic 500 page, logged).
 */
export function refusal(error: unknown): Refusal {
  if (!(error instanceof ApiError) || error.status >= 500) throw error;
  switch (error.code) {
    case 'webhook_endpoint_not_found':
      throw notFound('webhook endpoint');
    case 'invalid_webhook_url':
      return { status: error.status, message: error.message.replace(/^url /, 'The URL ') };
    case 'invalid_event_type':
      return { status: error.status, message: 'Choose at least one event, or All events.' };
    case 'webhook_endpoint_disabled':
      return { status: error.status, message: 'This endpoint is disabled and receives nothing: enable it first.' };
    default:
      if (error.param === 'description') return { status: error.status, message: error.message.replace(/^description must be a string of/, 'The description may have') };
      return { status: error.status, message: error.message };
  }
}

/** A use case call whose "not found" is the 404 page (the GET pages, and actions with nothing to say). */
export async function orWebhookNotFound<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'webhook_endpoint_not_found') throw notFound('webhook endpoint');
    throw error;
  }
}
