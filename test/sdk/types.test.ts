/**
 * The SDK's types come from openapi.yaml and hold the request core to it. Checked by the type
 * checker (`npm run typecheck`), which fails on a wrong `expectTypeOf` or an unused
 * `@ts-expect-error`; the test itself only runs the functions that never send anything.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { HttpClient } from '../../sdk/src/http.js';
import type { components, operations, Post, PostBatch, PostDeleted, SocialPublishing, WebhookEvent } from '../../sdk/src/index.js';

/** Never called: each line is a claim the type checker checks. */
function claims(client: SocialPublishing, http: HttpClient): void {
  expectTypeOf(client.posts.get).returns.toEqualTypeOf<Promise<components['schemas']['Post']>>();
  expectTypeOf(client.posts.create).returns.toEqualTypeOf<Promise<PostBatch>>();
  expectTypeOf(client.posts.delete).returns.toEqualTypeOf<Promise<PostDeleted>>();
  expectTypeOf<Parameters<typeof client.posts.create>[0]>().toEqualTypeOf<operations['createPosts']['requestBody']['content']['application/json']>();
  expectTypeOf<Post['status']>().toEqualTypeOf<'draft' | 'scheduled' | 'published' | 'failed'>();

  // @ts-expect-error: a path openapi.yaml does not have
  void http.request('get', '/post/{id}', { path: { id: 'x' } });
  // @ts-expect-error: a method openapi.yaml does not define on the path
  void http.request('put', '/posts/{id}', { path: { id: 'x' } });
  // @ts-expect-error: a body field the create does not take
  void client.posts.create({ accounts: ['acct_1'], txt: 'typo' });
  // @ts-expect-error: a status the list filter does not take
  void client.posts.list({ status: 'sent' });

  expectTypeOf(client.posts.update).returns.toEqualTypeOf<Promise<Post>>();
  expectTypeOf(client.posts.publish).returns.toEqualTypeOf<Promise<Post>>();
  expectTypeOf(client.posts.retry).returns.toEqualTypeOf<Promise<Post>>();
  expectTypeOf(client.posts.preview).returns.toEqualTypeOf<Promise<components['schemas']['PreviewBatch']>>();
  expectTypeOf<Parameters<typeof client.posts.update>[1]>().toEqualTypeOf<operations['updatePost']['requestBody']['content']['application/json']>();
  expectTypeOf<Parameters<typeof client.posts.preview>[0]>().toEqualTypeOf<operations['previewPosts']['requestBody']['content']['application/json']>();
  // @ts-expect-error: a field a PATCH does not take (a post's accounts are fixed)
  void client.posts.update('post_1', { accounts: ['acct_1'] });
  // @ts-expect-error: an operation that takes an Idempotency-Key must be sent with it (and so be retried with it)
  void http.request('patch', '/posts/{id}', { path: { id: 'x' }, body: { text: 'x' } });
  // @ts-expect-error: an operation openapi.yaml gives no Idempotency-Key cannot claim one
  void http.request('get', '/posts/{id}', { path: { id: 'x' }, repeat: 'idempotency-key' });
  // @ts-expect-error: nor can a webhook endpoint's PATCH (openapi.yaml gives it no key)
  void http.request('patch', '/webhook_endpoints/{id}', { path: { id: 'x' }, body: { description: 'x' }, repeat: 'idempotency-key' });
  // @ts-expect-error: a webhook endpoint's create takes a key, so it must be sent with one (its repeat replays the first answer)
  void http.request('post', '/webhook_endpoints', { body: { url: 'https://example.com', enabledEvents: ['*'] } });

  expectTypeOf(client.webhookEndpoints.create).returns.toEqualTypeOf<Promise<components['schemas']['WebhookEndpointWithSecret']>>();
  expectTypeOf(client.webhookEndpoints.rotateSecret).returns.toEqualTypeOf<Promise<components['schemas']['WebhookEndpointWithSecret']>>();
  expectTypeOf(client.webhookEndpoints.get).returns.toEqualTypeOf<Promise<components['schemas']['WebhookEndpoint']>>();
  expectTypeOf<Parameters<typeof client.webhookEndpoints.update>[1]>().toEqualTypeOf<operations['updateWebhookEndpoint']['requestBody']['content']['application/json']>();
  // @ts-expect-error: an event type openapi.yaml does not list
  void client.webhookEndpoints.create({ url: 'https://example.com', enabledEvents: ['post.sent'] });
}

/** The event's type narrows its object to the generated Post or Account; the envelope is openapi.yaml's. */
function eventClaims(event: WebhookEvent): void {
  expectTypeOf<WebhookEvent['type']>().toEqualTypeOf<components['schemas']['WebhookEvent']['type']>();
  expectTypeOf<Omit<WebhookEvent, 'data'>>().toEqualTypeOf<Omit<components['schemas']['WebhookEvent'], 'data'>>();
  if (event.type === 'post.published') expectTypeOf(event.data.object).toEqualTypeOf<Post>();
  if (event.type === 'account.token_health_changed') expectTypeOf(event.data.object).toEqualTypeOf<components['schemas']['Account']>();
  if (event.type === 'webhook.test') expectTypeOf(event.data.object).toEqualTypeOf<Record<string, never>>();
}

describe('types', () => {
  it('are checked by the type checker (this test only keeps the claims compiled)', () => {
    expectTypeOf(claims).toBeFunction();
    expectTypeOf(eventClaims).toBeFunction();
  });
});
