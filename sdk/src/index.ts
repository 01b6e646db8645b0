export {
  SocialPublishing,
  Posts,
  Accounts,
  type SocialPublishingOptions,
  type WaitForOutcomeOptions,
  type Post,
  type PostStatus,
  type PostBatch,
  type PostResult,
  type PostList,
  type PostDeleted,
  type Account,
  type AccountList,
  type PreviewBatch,
  type PreviewResult,
  type CreatePostsParams,
  type PreviewPostsParams,
  type UpdatePostParams,
  type PublishPostParams,
  type RetryPostParams,
  type ListPostsParams,
  type ListAccountsParams,
  type DeletePostParams,
} from './client.js';
export {
  SocialPublishingError,
  AuthenticationError,
  PermissionError,
  InvalidRequestError,
  RateLimitError,
  ApiError,
  ConnectionError,
  WaitForOutcomeError,
  WebhookVerificationError,
  type ApiErrorType,
} from './errors.js';
export type { RequestOptions, RetryEvent, Operation, PathParams, QueryParams, RequestBody, SuccessBody, TakesIdempotencyKey } from './http.js';
export { PagedList } from './pagination.js';
export { verifyWebhook, type WebhookEvent, type WebhookHeaders, type VerifyWebhookOptions } from './webhooks.js';
export type { paths, components, operations } from './generated/openapi.js';
